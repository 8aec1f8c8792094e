"""``citeloom init`` as a researcher meets it on a first day: what it finds (Zotero's data
directory where Zotero's settings put it, Better BibTeX's auto-exports, a .bib, a papers
folder), how it asks, and the config it writes, which every command then reads. The real
``validate`` on what it writes, with a data directory built from Zotero's schema, is
tests/integration/test_init.py."""

from __future__ import annotations

import json
import sqlite3
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.adapters.zotero.locate import auto_exports, data_dirs, read_prefs
from citeloom.config import load_settings
from citeloom.domain.first_config import FirstProject, project_name_for, render_config
from citeloom.entrypoints.cli import app
from tests.conftest import ROOT
from tests.zotero_fixture import add_auto_export, empty_data_dir, zotero_prefs

EXAMPLE = ROOT / "references" / "example.json"
BIB = """@article{ardel2023marsh,
  author = {Ardel, Mira and Reyes, Tomás and Halvorsen, Ingrid},
  title = {Carbon Burial in Restored Tidal Marshes: A Five-Year Sediment Record},
  journal = {Journal of Coastal Biogeochemistry},
  year = {2023},
  pages = {117--119},
  doi = {10.5555/CLX.2023.0417},
}
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder for the test: nothing of this machine's own Zotero is found."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.delenv("CITELOOM_CONFIG", raising=False)
    return folder


def init(folder: Path, *args: str, answers: str | None = None):
    return CliRunner().invoke(
        app, ["init", "-c", str(folder / "citeloom.toml"), *args], input=answers
    )


def test_the_data_directory_zotero_settings_name_comes_before_the_default(home):
    default = empty_data_dir(home / "Zotero")
    moved = empty_data_dir(home / "Sync" / "Zotero Data")
    zotero_prefs(home / ".zotero" / "zotero" / "k3j2.default", moved)
    found = data_dirs(home, {})
    assert [f.path for f in found] == [moved, default]
    assert "Zotero's settings" in found[0].how and found[1].how == "Zotero's default place"


def test_a_moved_data_directory_on_macos_and_windows_and_one_zotero_no_longer_uses(home):
    mac = empty_data_dir(home / "mac data")
    zotero_prefs(home / "Library/Application Support/Zotero/Profiles/ab12.default", mac)
    windows = empty_data_dir(home / "win data")
    appdata = home / "AppData" / "Roaming"
    zotero_prefs(appdata / "Zotero/Zotero/Profiles/cd34.default", windows)
    assert [f.path for f in data_dirs(home, {"APPDATA": str(appdata)})] == [mac, windows]
    # a custom folder switched off again, and a folder without zotero.sqlite: not offered
    zotero_prefs(home / "Library/Application Support/Zotero/Profiles/ab12.default", mac, False)
    (home / "Zotero").mkdir()
    assert [f.path for f in data_dirs(home, {"APPDATA": str(appdata)})] == [windows]


def test_prefs_are_read_as_javascript_writes_them():
    prefs = read_prefs(
        "// Mozilla User Preferences\n"
        'user_pref("extensions.zotero.dataDir", "C:\\\\Users\\\\Ana \\"A\\"\\\\Zotero");\n'
        'user_pref("extensions.zotero.useDataDir", true);\n'
        'user_pref("extensions.zotero.lastViewedFolder", 7);\n'
        "not a pref line\n"
    )
    assert prefs["extensions.zotero.dataDir"] == 'C:\\Users\\Ana "A"\\Zotero'
    assert prefs["extensions.zotero.useDataDir"] is True
    assert prefs["extensions.zotero.lastViewedFolder"] == 7


def test_better_bibtex_auto_exports_are_offered_when_citeloom_reads_them(home):
    data_dir = empty_data_dir(home / "Zotero")
    bib = home / "thesis" / "library.bib"
    bib.parent.mkdir()
    bib.write_text(BIB, encoding="utf-8")
    add_auto_export(data_dir, bib, "Better BibLaTeX")
    add_auto_export(data_dir, home / "thesis" / "gone.json")  # not written yet
    add_auto_export(data_dir, home / "thesis" / "library.yaml", "Better CSL YAML")
    (home / "thesis" / "library.yaml").write_text("- id: x\n", encoding="utf-8")
    [found] = auto_exports(data_dir)
    assert found.path == bib and found.how == "Better BibTeX's auto-export, Better BibLaTeX"


def test_auto_exports_of_earlier_better_bibtex_releases_are_read_too(home):
    data_dir = empty_data_dir(home / "Zotero")
    export = home / "library.json"
    export.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    db = sqlite3.connect(data_dir / "better-bibtex.sqlite")
    db.execute('CREATE TABLE "better-bibtex" (name TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)')
    record = {"path": str(export), "translatorID": "f4b52ab0-f878-4556-85a0-c7aeedd09dfc"}
    db.execute(
        'INSERT INTO "better-bibtex" VALUES (?, ?)',
        ("better-bibtex.autoexport", json.dumps({"name": "autoexport", "data": [record]})),
    )
    db.commit()
    db.close()
    [found] = auto_exports(data_dir)
    assert found.path == export and found.how.endswith(", Better CSL JSON")


def test_yes_writes_a_project_over_the_bib_and_the_papers_it_found(home):
    folder = home / "PhD Thesis"
    (folder / "papers").mkdir(parents=True)
    (folder / "papers" / "a.pdf").write_bytes(b"%PDF-1.4\n")
    (folder / "refs").mkdir()
    (folder / "refs" / "library.bib").write_text(BIB, encoding="utf-8")
    (folder / "package.json").write_text('{"name": "not a library"}', encoding="utf-8")
    result = init(folder, "--yes")
    assert result.exit_code == 0, result.output
    written = (folder / "citeloom.toml").read_text(encoding="utf-8")
    assert 'raw_dir = "papers"' in written and 'references = "refs/library.bib"' in written
    assert "Wrote " in result.output and "project 'phd-thesis'" in result.output
    assert "citeloom validate -p phd-thesis" in result.output
    settings = load_settings(folder / "citeloom.toml")  # what every command reads
    project = settings.get_project("phd-thesis")
    assert project.references_json == folder / "refs" / "library.bib"
    assert settings.paths.raw_dir == folder / "papers" and project.zotero is None


def test_an_existing_config_is_never_replaced_without_force(home):
    config = home / "citeloom.toml"
    config.write_text("# mine\n", encoding="utf-8")
    (home / "library.bib").write_text(BIB, encoding="utf-8")
    refused = init(home, "--yes")
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "already exists" in refused.output and "--force" in refused.output
    assert config.read_text(encoding="utf-8") == "# mine\n"
    replaced = init(home, "--yes", "--force")
    assert replaced.exit_code == 0, replaced.output
    assert "project." in config.read_text(encoding="utf-8")


def test_without_any_library_it_says_which_option_names_one(home):
    result = init(home, "--yes")
    assert result.exit_code == 2 and not (home / "citeloom.toml").exists()
    assert "--zotero DIR" in result.output and "--references FILE" in result.output


def test_it_asks_takes_enter_for_what_it_found_and_asks_again_after_a_wrong_answer(home):
    data_dir = empty_data_dir(home / "Zotero")
    folder = home / "marshes"
    folder.mkdir()
    (folder / "library.json").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    not_zotero = home / "Downloads"
    not_zotero.mkdir()
    answers = f"{not_zotero}\n\nnone\nnone\ncoast-2024\n"
    result = init(folder, answers=answers)
    assert result.exit_code == 0, result.output
    assert f"Found Zotero data directory: {data_dir} (Zotero's default place)" in result.output
    assert f"Found library file: {folder / 'library.json'}" in result.output
    assert "No papers folder found." in result.output
    assert f"{not_zotero}: not a Zotero data directory (no zotero.sqlite in it)" in result.output
    config = tomllib.loads((folder / "citeloom.toml").read_text(encoding="utf-8"))
    assert config["project"] == {
        "coast-2024": {"collection": "proj-coast-2024", "zotero": "~/Zotero"}
    }
    assert "raw_dir" not in config["paths"]


def test_with_standard_input_closed_it_says_how_to_run_without_asking(home):
    (home / "library.bib").write_text(BIB, encoding="utf-8")
    result = init(home, answers="")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no answer on standard input" in result.output and "--yes" in result.output


def test_options_are_checked_before_anything_is_written(home):
    (home / "empty.json").write_text("[]", encoding="utf-8")
    result = init(home, "--references", str(home / "empty.json"), "--zotero", "none", "--yes")
    assert result.exit_code == 2 and "holds no entries" in result.output
    bad = init(home, "--references", str(EXAMPLE), "--project", "my thesis", "--yes")
    assert bad.exit_code == 2 and "project name 'my thesis'" in bad.output
    assert not (home / "citeloom.toml").exists()


def test_paths_read_back_as_written_whatever_they_hold(tmp_path):
    home = tmp_path / "home"
    odd = Path('/srv/lab "shared"/a\\b/library.bib')
    text = render_config(FirstProject("lab", references=odd), home / "thesis", home)
    assert tomllib.loads(text)["project"]["lab"]["references"] == str(odd)
    assert project_name_for(home, home) == "library"
    assert project_name_for(home / "Ana's Thesis (2024)", home) == "ana-s-thesis-2024"


def test_a_command_without_a_config_points_to_init(home, monkeypatch):
    monkeypatch.chdir(home)
    result = CliRunner().invoke(app, ["inspect", "-p", "thesis"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "citeloom.toml: config file not found. Run `citeloom init` here" in result.output


def test_the_messages_of_a_first_day_name_only_commands_that_exist(tmp_path):
    """A missing config and missing model weights each name a command to run: it exists."""
    import re

    import typer

    from citeloom.adapters.embedding.fp32_export import INSTALL_HINT
    from citeloom.domain.errors import ConfigError

    with pytest.raises(ConfigError) as missing:
        load_settings(tmp_path / "citeloom.toml")
    commands = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    for message in (str(missing.value), INSTALL_HINT):
        named = re.findall(r"\bciteloom ([a-z][a-z-]*)", message)
        assert named and set(named) <= commands, (message, sorted(commands))
