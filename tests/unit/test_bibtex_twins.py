"""A ``.bib`` library and its CSL-JSON twin give the same records: every entry of the CSL-JSON
libraries (Better BibTeX's own export fixtures in ../shared, the shared papers' library and the
paginated articles' one) is written as BibLaTeX and as BibTeX by pandoc at test time, read
back, and compared field by field on what matching and page labels read.

pandoc's writer loses what its BibTeX cannot hold, and that is left out of the comparison,
never papered over: its ``bibtex`` output drops DOIs and URLs and has no ``entrysubtype`` (so
DOIs, arXiv ids and the publication stage are held to the BibLaTeX twin only), it writes
English titles in title case and CSL's ``<b>`` markup as ``\textbf`` (titles are compared as
relations fold them, markup and case aside), and it writes a literal name ("Court of
Arbitration for Sport") without the braces that keep it one name (such entries' authors are
not compared).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from citeloom.adapters.csl_references import load_references
from citeloom.domain.models import Reference
from citeloom.domain.relations.entries import stage, title_key
from citeloom.domain.text import fold_for_match
from tests.conftest import CSL_FIXTURES, DATA, ROOT, needs_pandoc

# the 23 files by name, collected the same with or without the corpus
NAMES = sorted(json.loads((DATA / "csl_fixtures_expected.json").read_text(encoding="utf-8")))
OURS = [DATA / "papers.csl.json", ROOT / "benchmarks" / "data" / "paginated.csl.json"]


def pandoc_twin(library: Path, to: str, folder: Path) -> Path | None:
    """The library written by pandoc as ``to`` (biblatex, bibtex); None where pandoc cannot
    read the CSL-JSON itself (two fixtures hold dates it refuses, "2019-05/2019-06" parts)."""
    result = subprocess.run(
        ["pandoc", "-f", "csljson", "-t", to, str(library)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        assert "date-parts" in result.stderr, result.stderr
        return None
    twin = folder / f"{library.stem}.{to}.bib"
    twin.write_text(result.stdout, encoding="utf-8")
    return twin


def has_literal_name(entry: dict) -> bool:
    return any("literal" in name for name in entry.get("author") or [])


def compared(ref: Reference, to: str, literal_names: bool) -> dict:
    """What matching and page labels read of an entry, as far as pandoc's ``to`` keeps it."""
    fields = {
        "title": title_key(ref.title),
        "year": ref.year,
        "page": ref.page,
        "families": None if literal_names else [fold_for_match(n) for n in ref.family_names],
    }
    if to == "biblatex":  # BibTeX has no entrysubtype: a newspaper article is an @article
        fields |= {"doi": ref.doi, "arxiv_id": ref.arxiv_id, "stage": stage(ref)}
    return fields


def assert_twins(library: Path, folder: Path) -> int:
    """Both twins of ``library`` against it; how many entries were compared."""
    raw = json.loads(library.read_text(encoding="utf-8"))
    entries = raw["items"] if isinstance(raw, dict) else raw
    literal = {str(e.get("citation-key") or e["id"]) for e in entries if has_literal_name(e)}
    csl = load_references(library)
    compared_entries = 0
    for to in ("biblatex", "bibtex"):
        twin = pandoc_twin(library, to, folder)
        if twin is None:
            continue
        bib = load_references(twin)
        assert [r.citekey for r in bib] == [r.citekey for r in csl], to
        for mine, theirs in zip(bib, csl, strict=True):
            where = f"{library.name} {to} {mine.citekey}"
            lit = mine.citekey in literal
            assert compared(mine, to, lit) == compared(theirs, to, lit), where
            compared_entries += 1
    return compared_entries


@needs_pandoc
@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES, ids=lambda n: n[:40])
def test_better_bibtex_fixtures_read_the_same_from_their_bib_twins(name, tmp_path):
    assert_twins(CSL_FIXTURES / name, tmp_path)


@needs_pandoc
@pytest.mark.parametrize("library", OURS, ids=lambda p: p.name)
def test_the_papers_libraries_read_the_same_from_their_bib_twins(library, tmp_path):
    assert assert_twins(library, tmp_path) == 2 * len(load_references(library))
