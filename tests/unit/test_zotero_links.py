"""The way back to Zotero: zotero:// links of a result's entry and PDF page, read from a Zotero
database built from Zotero's schema, stored with the document, and carried by every response.

The link format is Zotero's own (chrome/content/zotero/ZoteroProtocolHandler.mjs): select and
open-pdf under ``library/`` for the user's library and ``groups/<groupID>/`` for a group, the
page parameter being the 1-based PDF page (Zotero opens page index ``page - 1``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from citeloom.adapters.zotero.database import read_library
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.models import Chunk, ConvertedDocument, MetadataMatch, Reference
from citeloom.domain.records import build_payload, passage_from_payload
from citeloom.domain.zotero_links import zotero_links
from citeloom.services.evidence import Support
from citeloom.services.usecases.wire import CitationOut, PassageOut
from tests.conftest import PAPERS
from tests.zotero_fixture import build_zotero

GROUP_ID, GROUP_LIBRARY, FEED_LIBRARY = 4711, 2, 3


def test_links_follow_zoteros_routes_and_refuse_what_is_not_a_key():
    links = zotero_links("library", "1/PDFBOS01", "BOSONS01", 3)
    assert links is not None
    assert links.open_pdf == "zotero://open-pdf/library/items/PDFBOS01?page=3"
    assert links.select == "zotero://select/library/items/BOSONS01"
    group = zotero_links("groups/4711", "2/K7QF3MZA", "ABCD2345", None)
    assert group is not None
    assert group.open_pdf == "zotero://open-pdf/groups/4711/items/K7QF3MZA"  # no page: none
    assert group.select == "zotero://select/groups/4711/items/ABCD2345"
    # nothing guessed: a link is made of stored keys only, and only well-formed ones
    assert zotero_links(None, "1/PDFBOS01", "BOSONS01", 3) is None  # stored before links
    assert zotero_links("library", None, "BOSONS01", 3) is None
    assert zotero_links("library", "1/PDF?x=1", "BOSONS01", 3) is None
    assert zotero_links("users/12", "1/PDFBOS01", "BOSONS01", 3) is None


@pytest.mark.shared  # the fixture library holds PDFs of the shared corpus
def test_each_attachment_knows_its_library_part_of_a_link(tmp_path: Path):
    zotero = build_zotero(tmp_path)
    with zotero.edit() as w:
        w.library(GROUP_LIBRARY, "group", GROUP_ID)
        entry = w.item("GRPENTRY", "journalArticle", GROUP_LIBRARY, title="A lab paper")
        w.stored(entry, "GRPPDF01", PAPERS / "grobid_two_pages.pdf", "lab.pdf", library=2)
        w.library(FEED_LIBRARY, "feed")
        w.stored(None, "FEEDPDF1", PAPERS / "grobid_submission_161.pdf", "feed.pdf", library=3)
    by_key = {a.item_key: a for a in read_library(zotero.data_dir).attachments}
    with sqlite3.connect(zotero.database) as db:
        libraries = dict(db.execute("SELECT key, libraryID FROM items"))
    assert by_key["PDFBOS01"].link_library == "library"
    assert libraries["PDFBOS01"] == 1
    # a group is addressed by its zotero.org id, not by its local libraryID
    assert by_key["GRPPDF01"].link_library == f"groups/{GROUP_ID}"
    assert libraries["GRPPDF01"] == GROUP_LIBRARY
    assert by_key["GRPPDF01"].item.link_library == f"groups/{GROUP_ID}"
    assert by_key["FEEDPDF1"].link_library is None  # Zotero has no link into a feed


def _stored_passage(match: MetadataMatch, drop: str | None = None):
    document = ConvertedDocument("/z/storage/PDFBOS01/a.pdf", "0" * 64, "Bosons", 5, (), "test")
    chunk = Chunk("doc-1", 0, "text", "text", ("Intro",), 3, 4, 2)
    payload = build_payload(
        project="p", chunk=chunk, document=document, match=match, embed_model="m", ingest_id="i"
    )
    if drop:
        del payload["zotero"][drop]
    return passage_from_payload(1, 0.5, "c-1", payload)


def _zotero_match() -> MetadataMatch:
    """The match the Zotero resolver makes for the attachment the document was read from."""
    attachment = LibraryAttachment(
        path="/z/storage/PDFBOS01/a.pdf",
        item_key="PDFBOS01",
        parent_key="BOSONS01",
        citekey="rodriguezmontoya2009ultra",
        content_type="application/pdf",
        link_library="library",
    )
    ref = Reference(citekey="rodriguezmontoya2009ultra", title="Bosons")
    return MetadataMatch(ref, "zotero", 1.0, item=attachment.item)


def test_a_stored_passage_carries_its_links_into_every_response():
    passage = _stored_passage(_zotero_match())
    out = PassageOut.from_passage(passage).dump()
    assert out["zotero"] == {
        "item_key": "BOSONS01",
        "attachment_key": "PDFBOS01",
        "library": "library",
        "open_pdf": "zotero://open-pdf/library/items/PDFBOS01?page=3",  # its first PDF page
        "select": "zotero://select/library/items/BOSONS01",
    }
    quote = Support(passage=passage, quote="text", page=4, score=1.0, similarity=1.0, verified=True)
    cited = CitationOut.from_support(quote).dump()
    assert cited["zotero"]["open_pdf"].endswith("?page=4")  # the quote's own PDF page


def test_a_passage_stored_before_links_or_outside_zotero_has_none():
    old = _stored_passage(_zotero_match(), drop="link_library")
    assert old.zotero(3) is None and PassageOut.from_passage(old).dump()["zotero"] is None
    loose = _stored_passage(MetadataMatch(Reference(citekey="k", title="Bosons"), "doi", 0.9))
    assert PassageOut.from_passage(loose).dump()["zotero"] is None
