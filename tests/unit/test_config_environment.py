"""A bad value from the environment is blamed on the variable that set it, not on the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError
from citeloom.entrypoints.cli import app


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in os.environ if n.upper().startswith("CITELOOM_")]:
        monkeypatch.delenv(name)
    path = tmp_path / "citeloom.toml"
    path.write_text('[qdrant]\nbusy_timeout_s = 30\n\n[project."p"]\ncollection = "c"\n')
    path.write_text(path.read_text() + f'references_json = "{tmp_path / "refs.json"}"\n')
    return path


def message(config: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    return str(caught.value)


def test_a_bad_value_from_the_environment_names_the_variable(config, monkeypatch):
    monkeypatch.setenv("CITELOOM_QDRANT__BUSY_TIMEOUT_S", "abc")
    text = message(config)
    first = text.splitlines()[0]
    assert first.startswith("environment variable CITELOOM_QDRANT__BUSY_TIMEOUT_S: ")
    assert "fix or unset it" in first and str(config) in first  # what it overrides
    assert "qdrant.busy_timeout_s" in text and "(got 'abc')" in text


def test_the_variable_is_named_as_it_was_spelled(config, monkeypatch):
    monkeypatch.setenv("citeloom_qdrant__busy_timeout_s", "abc")  # names are case-insensitive
    assert message(config).startswith("environment variable citeloom_qdrant__busy_timeout_s: ")


def test_an_unknown_key_from_the_environment_names_the_variable(config, monkeypatch):
    monkeypatch.setenv("CITELOOM_QDRANT__BUSY", "1")
    text = message(config)
    assert text.startswith("environment variable CITELOOM_QDRANT__BUSY: ")
    assert "qdrant.busy: unknown key" in text


def test_a_section_from_the_environment_that_is_not_json_names_the_variable(config, monkeypatch):
    monkeypatch.setenv("CITELOOM_QDRANT", "{bad")
    text = message(config)
    assert text.startswith("environment variable CITELOOM_QDRANT: ")
    assert "CITELOOM_QDRANT__KEY" in text  # how to set one key instead


def test_a_bad_value_in_the_file_still_names_the_file(config):
    config.write_text(config.read_text().replace("= 30", '= "abc"'))
    text = message(config)
    assert text.startswith(f"{config}: invalid configuration")
    assert "environment" not in text


def test_bad_values_in_both_name_both(config, monkeypatch):
    config.write_text(config.read_text().replace('collection = "c"', 'collection = "a b"'))
    monkeypatch.setenv("CITELOOM_QDRANT__BUSY_TIMEOUT_S", "abc")
    text = message(config)
    assert text.splitlines()[0] == (
        f"{config} and environment variable CITELOOM_QDRANT__BUSY_TIMEOUT_S: invalid configuration"
    )
    lines = {line.split(":")[0].strip(): line for line in text.splitlines()[1:]}
    assert "CITELOOM_QDRANT__BUSY_TIMEOUT_S" in lines["qdrant.busy_timeout_s"]
    assert "environment" not in lines["project.p.collection"]


def test_validate_says_where_to_fix_it(config):
    result = CliRunner().invoke(
        app,
        ["validate", "-c", str(config)],
        env={"CITELOOM_QDRANT__BUSY_TIMEOUT_S": "abc"},
    )
    assert result.exit_code == 2
    assert "FAIL config: environment variable CITELOOM_QDRANT__BUSY_TIMEOUT_S" in result.output
    assert "fix: fix the file as the message says" not in result.output


def test_other_tools_caches_and_the_api_key_are_read_once_with_the_settings(
    config, tmp_path, monkeypatch
):
    from citeloom import bootstrap

    for name in ("XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE", "FASTEMBED_CACHE_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "fastembed"))
    monkeypatch.setenv("CITELOOM_QDRANT_API_KEY", "key-123")
    settings = load_settings(config)
    assert settings.environment.model_cache == tmp_path / "xdg" / "citeloom"
    assert settings.environment.hf_hub == tmp_path / "hf" / "hub"
    assert settings.qdrant_api_key == "key-123" and "key-123" not in repr(settings)
    sources = bootstrap.model_sources(settings)  # what the embedder is given
    assert sources.model_cache == tmp_path / "xdg" / "citeloom"
    assert sources.fastembed_caches[-1] == tmp_path / "fastembed"
    # the more specific variables win, read by settings made after they are set
    monkeypatch.setenv("CITELOOM_MODEL_CACHE", str(tmp_path / "models"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert settings.environment.model_cache == tmp_path / "xdg" / "citeloom"
    later = load_settings(config)
    assert later.environment.model_cache == tmp_path / "models"
    assert later.environment.hf_hub == tmp_path / "hub"
