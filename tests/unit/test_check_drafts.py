"""``citeloom check`` over several drafts, as a pre-commit hook calls it: what it refuses
before any model loads (the real run over the example papers is
tests/integration/test_pre_commit_hook.py)."""

from __future__ import annotations

from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import ROOT, write_config


def test_json_takes_one_draft_and_a_config_of_several_projects_needs_the_project(tmp_path):
    drafts = [tmp_path / "a.md", tmp_path / "b.md"]
    for draft in drafts:
        draft.write_text("Text [@key, p. 1].\n", encoding="utf-8")
    config = write_config(
        tmp_path,
        ROOT / "references" / "example.json",
        extra='[project."other"]\ncollection = "proj-other"\nreferences = "x.bib"\n',
    )
    names = [str(d) for d in drafts]
    several = CliRunner().invoke(app, ["check", *names, "--json", "-c", str(config)])
    assert several.exit_code == 2 and "--json prints one draft's report" in several.output
    unnamed = CliRunner().invoke(app, ["check", *names, "-c", str(config)])
    assert unnamed.exit_code == 2 and "Traceback" not in unnamed.output
    assert "has 2 projects (other, papers): name the one to check with --project" in (
        unnamed.output
    )
