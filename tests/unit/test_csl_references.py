"""CSL-JSON loading on Better BibTeX's own export fixtures, and matching on converted text."""

import json
from pathlib import Path

import pytest

from citeloom.adapters.csl_references import CslMetadataResolver, load_references
from citeloom.domain.errors import ReferencesError
from citeloom.domain.models import Block, BlockKind, ConvertedDocument
from tests.conftest import CSL_FIXTURES, ROOT

FIXTURES = sorted(CSL_FIXTURES.glob("*.json"))


def test_there_are_23_fixture_files():
    assert len(FIXTURES) == 23


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name[:40])
def test_every_better_bibtex_fixture_loads(path: Path):
    refs = load_references(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert len(refs) == len(raw)
    for ref, entry in zip(refs, raw, strict=True):
        assert ref.citekey == str(entry.get("citation-key") or entry["id"])
        if entry.get("DOI"):
            assert ref.doi == ref.doi.lower()


def test_names_dates_and_dois_are_read_as_exported():
    refs = {r.citekey: r for f in FIXTURES for r in load_references(f)}
    assert refs["brittain2004"].doi == "10/fqd6hj"  # a short DOI
    assert refs["brittain2004"].year == 2004
    assert refs["courtofarbitrationforsport2019"].authors == ("Court of Arbitration for Sport",)
    assert refs["delaMareTitle2017"].family_names == ("de la Mare",)


def test_malformed_file_names_file_and_json_path(tmp_path):
    bad = tmp_path / "lib.json"
    bad.write_text('[{"id": "ok", "title": "T"}, {"title": "no key"}]', encoding="utf-8")
    with pytest.raises(ReferencesError, match=r"lib.json: \$\[1\]: entry has neither"):
        load_references(bad)
    bad.write_text('[{"id": "x", "author": {"family": "A"}}]', encoding="utf-8")
    with pytest.raises(ReferencesError, match=r"\$\[0\]\.author"):
        load_references(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ReferencesError, match="line 1, column 2"):
        load_references(bad)


def document(title: str | None, front: str = "") -> ConvertedDocument:
    blocks = (Block(front, BlockKind.TEXT, 1),) if front else ()
    return ConvertedDocument("x.pdf", "0" * 64, title, 1, blocks, "test")


def test_doi_on_the_page_wins_over_title():
    resolver = CslMetadataResolver(ROOT / "references" / "example.json")
    match = resolver.resolve(document("Quiet Hours", "printed doi:10.5555/CLX.2023.0417."))
    assert (match.citekey, match.kind) == ("ardel2023marsh", "doi")


def test_title_match_and_no_match():
    resolver = CslMetadataResolver(ROOT / "references" / "example.json")
    match = resolver.resolve(
        document("Quiet hours: measuring interruptions in open-plan research offices")
    )
    assert (match.citekey, match.kind) == ("lindqvist2021quiet", "title")
    miss = resolver.resolve(document("Something else entirely"))
    assert miss.reference is None and miss.problem == "MetadataMissing"
    assert miss.candidates  # the best candidates are reported for the audit


def test_file_name_hint_names_an_entry():
    resolver = CslMetadataResolver(ROOT / "references" / "example.json")
    match = resolver.resolve(document(None), hint="tanabe2022notebooks")
    assert (match.citekey, match.kind) == ("tanabe2022notebooks", "hint")
