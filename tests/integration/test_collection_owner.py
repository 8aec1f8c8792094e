"""Issue 42, case 4: a second citeloom.toml naming the same index_dir and collection under
another project name saw the first project's points (inspect), wrote into them (ingest: the
first project's count fell from 8 to 7) and removed them (drop --yes), and validate passed. A
collection now records the project that made it; every other name is refused, and a project
renamed on purpose takes its collection over with `citeloom rename-project`.

The real CLI on the embedded engine, as a user would meet it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real
REFERENCES = ROOT / "references" / "example.json"


def cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CITELOOM, *args, "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,  # a watch that is not refused runs until stopped
    )


def stored(config: Path, project: str) -> dict:
    """What ``inspect --json`` says the project's collection holds."""
    result = cli(config, "inspect", "-p", project, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def first(tmp_path: Path) -> Path:
    """Project 'papers', its collection 'proj-papers' holding the three example papers."""
    folder = tmp_path / "first"
    folder.mkdir()
    config = write_config(folder, REFERENCES)
    result = cli(config, "ingest", str(EXAMPLES), "-p", "papers")
    assert result.returncode == 0, result.stderr
    return config


def test_another_config_naming_the_same_collection_is_refused_it_and_changes_nothing(
    first: Path, tmp_path: Path
):
    folder = tmp_path / "second"
    folder.mkdir()
    second = write_config(folder, REFERENCES, project="thesis")
    second.write_text(
        second.read_text()
        .replace('index_dir = "var/qdrant"', f'index_dir = "{first.parent / "var" / "qdrant"}"')
        .replace('collection = "proj-thesis"', 'collection = "proj-papers"'),
        encoding="utf-8",
    )
    before = stored(first, "papers")
    assert len(before["documents"]) == 3 and before["points"] > 0

    for args in (
        ("inspect", "-p", "thesis"),
        ("query", "salt marsh", "-p", "thesis", "--local"),
        ("ingest", str(EXAMPLES / "ardel2023_restored_marshes.pdf"), "-p", "thesis"),
        ("drop", "-p", "thesis", "--yes"),
        ("watch", str(EXAMPLES), "-p", "thesis"),
    ):
        result = cli(second, *args)
        assert result.returncode == 4, (args, result.stdout, result.stderr)
        assert (
            "collection 'proj-papers' belongs to project 'papers', which made it, but this "
            "config calls its project 'thesis'" in result.stderr
        ), args
        assert "citeloom rename-project papers thesis" in result.stderr
        assert "Traceback" not in result.stderr

    assert stored(first, "papers") == before  # nothing written, nothing removed

    result = cli(second, "validate", "-p", "thesis", "--json")
    checks = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    assert result.returncode == 4
    owner = checks["collection project"]
    assert not owner["ok"] and "belongs to project 'papers'" in owner["detail"]
    assert "citeloom rename-project papers thesis" in owner["fix"]

    result = cli(first, "validate", "-p", "papers", "--json")
    checks = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    assert result.returncode == 0, result.stdout
    assert checks["collection project"]["detail"] == "'proj-papers' belongs to 'papers'"


def test_a_project_renamed_on_purpose_takes_its_collection_and_chunks_along(first: Path):
    before = stored(first, "papers")
    first.write_text(
        first.read_text().replace('[project."papers"]', '[project."thesis"]'), encoding="utf-8"
    )
    refused = cli(first, "query", "salt marsh", "-p", "thesis", "--local")
    assert refused.returncode == 4 and "belongs to project 'papers'" in refused.stderr
    wrong = cli(first, "rename-project", "notes", "thesis")  # not the name it was made under
    assert wrong.returncode == 2
    assert "belongs to project 'papers', not 'notes'" in wrong.stderr

    result = cli(first, "rename-project", "papers", "thesis")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"collection 'proj-papers' now belongs to project 'thesis': {before['points']} chunks "
        "moved from 'papers'"
    )
    after = stored(first, "thesis")
    assert after["documents"] == before["documents"] and after["points"] == before["points"]
    # every chunk is stored under the new name: a search (filtered by project) finds them,
    # and an ingest of the same files finds them stored and writes nothing
    found = cli(first, "query", "salt marsh", "-p", "thesis", "--local", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["results"], found.stderr
    again = cli(first, "ingest", str(EXAMPLES), "-p", "thesis")
    assert again.returncode == 0 and "3 skipped" in again.stdout, again.stdout
    assert stored(first, "thesis") == after

    repeated = cli(first, "rename-project", "papers", "thesis")  # after an interruption
    assert repeated.returncode == 0 and "0 chunks moved" in repeated.stdout
