"""``citeloom init`` on a fresh folder, then ``citeloom validate`` on what it wrote, both as
commands in a shell: with a Zotero data directory built from Zotero's schema (moved where
Zotero's settings say, with a Better BibTeX auto-export), and with a folder holding a .bib and
the papers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, EXAMPLES, ROOT
from tests.unit.test_init import BIB
from tests.zotero_fixture import add_auto_export, build_zotero, zotero_prefs

pytestmark = pytest.mark.real


def run(folder: Path, home: Path, *args: str, answers: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home)}
    env.pop("CITELOOM_CONFIG", None)
    env.pop("APPDATA", None)
    return subprocess.run(
        [CITELOOM, *args], cwd=folder, input=answers, capture_output=True, text=True,
        check=False, env=env,
    )  # fmt: skip


def validated(folder: Path, home: Path, project: str) -> dict:
    done = run(folder, home, "validate", "-p", project, "--json")
    report = json.loads(done.stdout)
    failed = [c for c in report["checks"] if not c["ok"]]
    assert done.returncode == 0 and report["ok"], failed or done.stderr
    return {c["check"]: c for c in report["checks"]}


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_init_finds_a_moved_zotero_and_its_auto_export_and_validate_passes(tmp_path):
    home = tmp_path / "home"
    fixture = build_zotero(home / "Sync")  # moved away from ~/Zotero in Zotero's settings
    zotero_prefs(home / ".zotero" / "zotero" / "x7k2.default", fixture.data_dir)
    thesis = home / "thesis"
    thesis.mkdir()
    export = thesis / "My Library.json"
    shutil.copy(ROOT / "references" / "example.json", export)
    add_auto_export(fixture.data_dir, export)

    done = run(thesis, home, "init", answers="\n\n\n\n")  # Enter: what it found
    assert done.returncode == 0, done.stderr
    assert f"Found Zotero data directory: {fixture.data_dir} (Zotero's settings" in done.stdout
    assert (
        f"Found library file: {export} (Better BibTeX's auto-export, Better CSL JSON)"
        in done.stdout
    )
    written = (thesis / "citeloom.toml").read_text(encoding="utf-8")
    assert 'zotero = "~/Sync/Zotero"' in written and 'references = "My Library.json"' in written
    checks = validated(thesis, home, "thesis")
    assert checks["references"]["detail"].endswith("Zotero entries")


def test_init_yes_over_a_bib_and_a_papers_folder_then_validate_passes(tmp_path):
    home = tmp_path / "home"
    folder = home / "marshes"
    shutil.copytree(EXAMPLES, folder / "papers")
    (folder / "library.bib").write_text(BIB, encoding="utf-8")
    done = run(folder, home, "init", "--yes")
    assert done.returncode == 0, done.stderr
    assert "project 'marshes' reads library file library.bib" in done.stdout
    checks = validated(folder, home, "marshes")
    assert "BibTeX" in checks["references"]["detail"]
