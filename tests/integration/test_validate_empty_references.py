"""An empty references file is valid CSL-JSON, yet nothing can be matched: validate warns."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import write_config

pytestmark = pytest.mark.real


def test_validate_warns_that_an_empty_library_matches_nothing(tmp_path):
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    config = str(write_config(tmp_path, refs))
    result = CliRunner().invoke(app, ["validate", "-p", "papers", "-c", config])
    assert result.exit_code == 0, result.output  # a warning, not a failure
    assert "warn references: the references file has no entries" in result.output
    assert "no document can be matched to a citekey" in result.output
    assert result.output.rstrip().endswith("all checks passed (1 warning)")

    result = CliRunner().invoke(app, ["validate", "-p", "papers", "-c", config, "--json"])
    (check,) = [c for c in json.loads(result.output)["checks"] if c["check"] == "references"]
    assert check["ok"] and check["warning"] and "Better BibTeX" in check["fix"]
