"""Reading a Zotero data directory: entries, citation keys, attachments, annotations, locks."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from citeloom.adapters.zotero.database import read_library
from citeloom.adapters.zotero.resolver import ZoteroMetadataResolver
from citeloom.domain.errors import ReferencesError
from citeloom.domain.models import ConvertedDocument
from tests.conftest import PAPERS
from tests.zotero_fixture import ZoteroFixture, build_zotero


@pytest.fixture
def zotero(tmp_path: Path) -> ZoteroFixture:
    return build_zotero(tmp_path)


def _document(path: str) -> ConvertedDocument:
    return ConvertedDocument(path, "0" * 64, "Some title", 1, (), "test")


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_citation_keys_come_from_the_field_extra_and_better_bibtex(zotero):
    library = read_library(zotero.data_dir)
    refs = {r.citekey: r for r in library.references}
    # citationKey field, "Citation Key:" in extra, better-bibtex.sqlite
    assert {"rodriguezmontoya2009ultra", "wang2008information", "hong1999exact"} <= set(refs)
    assert "trashed2010" not in refs  # in the trash
    assert library.without_key == ["NOKEY001 (A draft without a key)"]
    hong = refs["hong1999exact"]
    assert hong.authors == ("Hong, Woo-Pyo", "Jung, Young-Dae")
    assert (hong.year, hong.page, hong.item_type) == (1999, "272-278", "journalArticle")
    assert refs["mullen2007timp"].doi == "10.18637/jss.v018.i03"
    assert refs["rodriguezmontoya2009ultra"].arxiv_id == "0908.0054"


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_collections_are_paths_and_tags_are_kept(zotero):
    refs = {r.citekey: r for r in read_library(zotero.data_dir).references}
    assert refs["rodriguezmontoya2009ultra"].collections == ("Thesis/Chapter 2",)
    assert refs["wang2008information"].collections == ("Thesis",)
    assert refs["hong1999exact"].tags == ("solitons", "to-read")


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_attachments_name_their_entry_and_say_why_one_is_not_ingested(zotero):
    attachments = read_library(zotero.data_dir).attachments
    ingested = {a.path: a.citekey for a in attachments if a.skipped is None}
    assert ingested == zotero.attachments  # stored and linked files, the keyless one too
    skipped = {a.item_key: a.skipped for a in attachments if a.skipped}
    assert set(skipped) == {"HTMLSNAP", "PDFMISS1"}
    assert skipped["HTMLSNAP"].startswith("not a PDF (text/html)")
    assert "the file is missing" in skipped["PDFMISS1"]
    assert all("PDFTRASH" not in a.path and a.item_key != "LINKURL1" for a in attachments)


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_annotations_become_notes_of_kind_annotation(zotero):
    notes = {n.citekey: n for n in read_library(zotero.data_dir).annotations}
    highlight = notes["rodriguezmontoya2009ultra"]
    assert highlight.kind == "annotation" and highlight.page == 2
    assert "“the scalar field behaves as dark matter”" in highlight.text
    assert "compare with chapter 2" in highlight.text
    assert notes["hong1999exact"].text == "the fifth-order equation needs a check"
    assert notes["hong1999exact"].page == 273


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_a_locked_database_is_read_without_waiting_or_writing(zotero):
    holder = zotero.connect()
    holder.execute("BEGIN EXCLUSIVE")  # Zotero holds its database so while it runs
    holder.execute("UPDATE items SET version = 5")  # and is half-way through a change
    before = zotero.database.stat().st_mtime_ns, zotero.database.read_bytes()
    try:
        library = read_library(zotero.data_dir)
    finally:
        holder.rollback()
        holder.close()
    assert len(library.references) == 4
    assert (zotero.database.stat().st_mtime_ns, zotero.database.read_bytes()) == before
    assert not Path(f"{zotero.database}-journal").exists()


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_the_resolver_matches_attachments_exactly_and_reports_a_missing_key(zotero):
    resolver = ZoteroMetadataResolver(zotero.data_dir)
    for path, citekey in zotero.attachments.items():
        match = resolver.resolve(_document(path))
        if citekey is None:
            assert match.reference is None and match.problem == "MetadataMissing"
            assert "NOKEY001 has no citation key" in (match.detail or "")
        else:
            assert (match.citekey, match.kind) == (citekey, "zotero")
    # a file Zotero does not hold is matched as a CSL library would match it
    assert resolver.resolve(_document("/elsewhere/x.pdf"), hint="hong1999exact").kind == "hint"


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_the_fingerprint_follows_the_library_not_zotero_bookkeeping(zotero):
    first = ZoteroMetadataResolver(zotero.data_dir).fingerprint
    with zotero.connect() as db:
        db.execute("UPDATE items SET synced = 1, clientDateModified = '2030-01-01'")
    assert ZoteroMetadataResolver(zotero.data_dir).fingerprint == first
    with zotero.connect() as db:
        db.execute("UPDATE itemDataValues SET value = 'Renamed' WHERE value = '2008'")
    assert ZoteroMetadataResolver(zotero.data_dir).fingerprint != first


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_entries_that_disagree_with_the_references_file_are_reported(zotero, tmp_path):
    csl = tmp_path / "library.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "hong1999exact",
                    "title": "Exact Solitary-wave Solutions for the "
                    "General Fifth-order Shallow Water Wave Equation",
                    "issued": {"date-parts": [[2000]]},
                    "author": [{"family": "Hong", "given": "W."}],
                },
                {"id": "onlyhere2020", "title": "Only in the export"},
            ]
        )
    )
    resolver = ZoteroMetadataResolver(zotero.data_dir, references_json=csl)
    assert resolver.disagreements() == ["hong1999exact: year 1999 / 2000 (Zotero / library.json)"]
    assert "onlyhere2020" in {r.citekey for r in resolver.references()}


def test_a_folder_that_is_not_a_zotero_data_directory_is_named(tmp_path):
    with pytest.raises(ReferencesError, match=r"no zotero.sqlite here.*Data Directory"):
        read_library(tmp_path)
    (tmp_path / "zotero.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(ReferencesError, match=r"zotero\.sqlite: not a readable SQLite"):
        read_library(tmp_path)


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_a_linked_file_relative_to_the_base_directory(zotero, tmp_path):
    base = tmp_path / "papers"
    base.mkdir()
    os.symlink(zotero.data_dir / "storage" / "PDFHONG1" / "hong.pdf", base / "hong.pdf")
    with sqlite3.connect(zotero.database) as db:
        db.execute(
            "UPDATE itemAttachments SET linkMode = 2, path = 'attachments:hong.pdf' "
            "WHERE path = 'storage:hong.pdf'"
        )
    unset = {a.item_key: a for a in read_library(zotero.data_dir).attachments}["PDFHONG1"]
    assert "zotero_base_dir" in (unset.skipped or "")
    found = {a.item_key: a for a in read_library(zotero.data_dir, base).attachments}["PDFHONG1"]
    assert (found.path, found.skipped) == (str(base / "hong.pdf"), None)


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_a_key_two_items_claim_is_neither_ones(zotero):
    """Issue 28: two items with one citation key labelled each other's passages."""
    with zotero.edit() as w:
        twin = w.item("TWINKEY1", "journalArticle", title="Another paper", date="2010")
        _, twin_pdf = w.stored(twin, "PDFTWIN1", PAPERS / "grobid_submission_161.pdf", "t.pdf")
    bbt = sqlite3.connect(zotero.data_dir / "better-bibtex.sqlite")
    with bbt:  # Better BibTeX gives it the key BOSONS01 holds in its citationKey field
        bbt.execute(
            "INSERT INTO citationkey VALUES (?, 'TWINKEY1', 1, 'rodriguezmontoya2009ultra', 0)",
            (zotero.item_ids["TWINKEY1"],),
        )
    bbt.close()
    library = read_library(zotero.data_dir)
    assert "rodriguezmontoya2009ultra" not in {r.citekey for r in library.references}
    [problem] = [p for p in library.problems if p.kind == "shared-key"]
    assert problem.fails
    assert 'Zotero item BOSONS01 "Ultra light bosonic dark matter and CMB" (citationKey field)' in (
        problem.detail
    )
    assert 'Zotero item TWINKEY1 "Another paper" (Better BibTeX)' in problem.detail
    resolver = ZoteroMetadataResolver(zotero.data_dir)
    bosons_pdf = next(p for p, key in zotero.attachments.items() if key and "rodriguez" in key)
    for path, other in ((bosons_pdf, "TWINKEY1"), (str(twin_pdf), "BOSONS01")):
        match = resolver.resolve(_document(path))
        assert match.reference is None and match.item is not None
        assert other in (match.detail or "")  # names the item it shares the key with
    twin_match = resolver.resolve(_document(str(twin_pdf)))
    assert twin_match.item is not None and twin_match.item.item_key == "TWINKEY1"
