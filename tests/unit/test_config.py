from pathlib import Path

import pytest

from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "citeloom.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_repository_config_loads_with_paths_resolved_against_its_folder():
    settings = load_settings(ROOT / "citeloom.toml")
    project = settings.get_project("example")
    assert project.collection == "proj-example"
    assert project.references_json == ROOT / "references" / "example.json"
    assert settings.paths.index_dir == ROOT / "var" / "qdrant"
    assert settings.chunking.max_tokens == 254


def test_environment_overrides_the_file(tmp_path, monkeypatch):
    path = write(tmp_path, '[qdrant]\nurl = ""\n')
    monkeypatch.setenv("CITELOOM_QDRANT__URL", "http://qdrant.lab:6333")
    monkeypatch.setenv("CITELOOM_QDRANT_API_KEY", "s3cret")
    settings = load_settings(path)
    assert settings.qdrant.url == "http://qdrant.lab:6333"
    assert settings.qdrant_api_key == "s3cret"
    assert "s3cret" not in repr(settings)


def test_unknown_keys_and_bad_values_are_named(tmp_path):
    path = write(
        tmp_path,
        '[chunking]\nmax_tokens = "many"\nmax_tokenz = 3\n'
        '[project."x"]\ncollection = "bad name"\nreferences_json = "r.json"\n',
    )
    with pytest.raises(ConfigError) as error:
        load_settings(path)
    message = str(error.value)
    assert str(path) in message
    assert "chunking.max_tokens" in message
    assert "chunking.max_tokenz: unknown key" in message
    assert "project.x.collection" in message


def test_api_key_in_file_is_refused_with_the_env_variable(tmp_path):
    path = write(tmp_path, '[qdrant]\napi_key = "oops"\n')
    with pytest.raises(ConfigError, match="CITELOOM_QDRANT_API_KEY"):
        load_settings(path)


def test_broken_toml_names_the_file(tmp_path):
    path = write(tmp_path, "[paths\nraw_dir = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(path)


def test_missing_file_says_how_to_fix(tmp_path):
    with pytest.raises(ConfigError, match="--config"):
        load_settings(tmp_path / "nope.toml")


def test_unknown_project_lists_the_configured_ones():
    settings = load_settings(ROOT / "citeloom.toml")
    with pytest.raises(ConfigError, match="configured: example"):
        settings.get_project("nope")


def test_overlap_must_stay_below_half_the_chunk(tmp_path):
    path = write(tmp_path, "[chunking]\nmax_tokens = 100\noverlap_tokens = 60\n")
    with pytest.raises(ConfigError, match="overlap_tokens"):
        load_settings(path)


def test_each_project_chooses_its_fusion_and_a_bad_one_is_named(tmp_path):
    from citeloom.domain.fusion import DEFAULT_FUSION
    from citeloom.services.query import QueryService

    path = write(
        tmp_path,
        '[project."a"]\ncollection = "a"\nreferences_json = "r.json"\n'
        '[project."b"]\ncollection = "b"\nreferences_json = "r.json"\nfusion = "rrf"\n'
        '[project."c"]\ncollection = "c"\nreferences_json = "r.json"\nfusion = "dbsf"\n'
        "fusion_weights = [2.0, 1.0]\n",
    )
    settings = load_settings(path)
    services = {
        name: QueryService(
            project=name,
            collection=name,
            embedder=None,  # type: ignore[arg-type]
            index=None,  # type: ignore[arg-type]
            fusion=settings.get_project(name).fusion,
            weights=settings.get_project(name).fusion_weights,
        )
        for name in "abc"
    }
    assert settings.get_project("a").fusion == DEFAULT_FUSION == "linear"
    assert services["a"].weights == [0.6, 0.4]  # the measured default (ADR 0004)
    assert services["b"].weights == [1.0, 1.0]  # rrf's own default, not linear's
    assert services["c"].weights == [2.0, 1.0]

    path.write_text('[project."x"]\ncollection = "x"\nreferences_json = "r"\nfusion = "max"\n')
    with pytest.raises(ConfigError, match=r"project\.x\.fusion"):
        load_settings(path)


def test_two_projects_cannot_share_a_collection(tmp_path):
    path = write(
        tmp_path,
        '[project."thesis"]\ncollection = "shared"\nreferences_json = "r.json"\n'
        '[project."lab"]\ncollection = "shared"\nreferences_json = "r.json"\n',
    )
    with pytest.raises(ConfigError) as error:
        load_settings(path)
    assert "projects 'thesis' and 'lab' share the collection 'shared'" in str(error.value)
