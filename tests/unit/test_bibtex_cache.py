"""A ``.bib`` library is parsed once per content: the project's next command reads its
entries from ``cache_dir`` (a 20 MB library took a minute to parse on every validate, ingest
and check), a changed file is parsed again, and a damaged cache file is never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloom.adapters import bibtex_references
from citeloom.adapters.csl_references import load_references
from citeloom.bootstrap import metadata
from citeloom.config import load_settings
from tests.conftest import write_config


def _library(path: Path, entries: int) -> Path:
    """A generated library: macros, accents, crossref, every kind of field read."""
    lines = ['@string{jcap = "Journal of Cosmology and Astroparticle Physics"}']
    for n in range(entries):
        lines.append(
            f'@article{{key{n},\n  author = {{M{{\\"u}}ller, J{n} and von Neumann, John}},\n'
            f'  title = {{Paper {n} on {{DNA}} --- a study}},\n  journal = jcap # " A",\n'
            f"  year = {1950 + n % 70}, month = mar, pages = {{{n}--{n + 9}}},\n"
            f"  doi = {{10.1000/x{n}}}, keywords = {{a, b}},\n}}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The paths pybtex parsed, one item a parse."""
    parsed: list[Path] = []
    parse = bibtex_references.parse_bibtex

    def counting(path: Path, text: str) -> list[dict]:
        parsed.append(path)
        return parse(path, text)

    monkeypatch.setattr(bibtex_references, "parse_bibtex", counting)
    return parsed


def test_an_unchanged_library_is_parsed_once_and_a_changed_one_again(tmp_path, parses):
    library = _library(tmp_path / "library.bib", 2000)
    cache = tmp_path / "cache"
    first = load_references(library, cache)
    again = load_references(library, cache)
    assert parses == [library]  # the second read took the parsed entries
    assert again == first and len(again) == 2000
    assert again[7].container_title == "Journal of Cosmology and Astroparticle Physics A"
    assert again[7].authors == ("Müller, J7", "von Neumann, John")
    with library.open("a", encoding="utf-8") as file:
        file.write("@misc{added, title = {Added}}\n")
    changed = load_references(library, cache)
    assert parses == [library, library]
    assert changed[:-1] == first and changed[-1].citekey == "added"


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data.replace(b"Paper 5 on", b"Paper 6 on", 1),  # changed, still JSON
        lambda data: b"not json\n" + data,
        lambda data: b"",
    ],
    ids=["truncated", "edited", "garbage", "empty"],
)
def test_a_damaged_cache_file_is_ignored_and_made_again(tmp_path, parses, damage):
    library = _library(tmp_path / "library.bib", 50)
    cache = tmp_path / "cache"
    first = load_references(library, cache)
    [stored] = (cache / "libraries").glob("*.json")
    stored.write_bytes(damage(stored.read_bytes()))
    assert load_references(library, cache) == first
    assert parses == [library, library]
    assert load_references(library, cache) == first  # made whole again: no third parse
    assert parses == [library, library]


def test_the_projects_next_command_reads_the_library_from_its_cache_dir(tmp_path, parses):
    library = _library(tmp_path / "library.bib", 20)
    settings = load_settings(write_config(tmp_path, library))
    project = settings.get_project("papers")
    # two commands, each with a resolver of its own, as two processes have
    assert metadata(settings, project).references() == metadata(settings, project).references()
    assert parses == [library]
    assert list((tmp_path / "var" / "cache" / "libraries").glob("*.json"))
