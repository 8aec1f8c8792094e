"""Browsing a paper (find_chunks, get_passage) and storing notes, over fakes at every port."""

from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError, EmbeddingModelMismatch, TimeLimitExceeded
from citeloom.domain.models import Reference
from citeloom.domain.notes import NoteItem
from citeloom.ports import SearchFilter
from citeloom.services.browse import BrowseService
from citeloom.services.ingest import IngestService
from citeloom.services.notes import MAX_ITEMS, NoteService
from citeloom.services.query import QueryService
from citeloom.services.usecases.wire import PassageOut
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020, tags=("marsh",))]
PAPER = (
    "TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes bury carbon.\nThey trap sediment.\f"
    "# 2 Methods\nCores were taken.\nPins were read.\f# 3 Results\nBurial was fast."
)


@pytest.fixture
def index(tmp_path: Path) -> FakeIndex:
    index = FakeIndex()
    (tmp_path / "smith2020.pdf").write_text(PAPER, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "smith2020.pdf").write_text(PAPER + "\nAnother project's copy.", encoding="utf-8")
    for project, folder in (("p", tmp_path / "smith2020.pdf"), ("q", other)):
        IngestService(
            project=project,
            collection="c" if project == "p" else "cq",
            converter=FakeConverter(),
            chunker=FakeChunker(),
            metadata=FakeMetadata(REFS),
            embedder=FakeEmbedder(),
            index=index,
            audit=MemoryAudit(),
        ).run([folder])
    return index


def browse(index: FakeIndex) -> BrowseService:
    return BrowseService(project="p", collection="c", index=index)


def test_find_chunks_pages_through_a_paper_in_reading_order(index):
    first = browse(index).find_chunks("smith2020", limit=2)
    assert [p.text for p in first.passages] == ["Marshes bury carbon.", "They trap sediment."]
    assert (first.total, first.next_cursor) == (5, "2")
    rest = browse(index).find_chunks("smith2020", cursor=first.next_cursor, limit=10)
    assert [p.text for p in rest.passages] == [
        "Cores were taken.",
        "Pins were read.",
        "Burial was fast.",
    ]
    assert rest.next_cursor is None


def test_find_chunks_by_section_and_page(index):
    methods = browse(index).find_chunks("smith2020", section="methods")
    assert [p.text for p in methods.passages] == ["Cores were taken.", "Pins were read."]
    page3 = browse(index).find_chunks("smith2020", page=3)
    assert [p.text for p in page3.passages] == ["Burial was fast."]
    assert browse(index).find_chunks("smith2020", page=9).passages == []


def test_find_chunks_refuses_an_unknown_citekey_and_a_forged_cursor(index):
    with pytest.raises(ConfigError, match="no document with citekey 'nobody'"):
        browse(index).find_chunks("nobody")
    with pytest.raises(ConfigError, match="cursor"):
        browse(index).find_chunks("smith2020", cursor="abc")


def test_get_passage_returns_its_neighbours_in_the_same_document(index):
    chunks = browse(index).find_chunks("smith2020").passages
    middle = browse(index).get_passage(chunks[2].chunk_id, context=1)
    assert middle.passage.text == "Cores were taken."
    assert [p.text for p in middle.before] == ["They trap sediment."]
    assert [p.text for p in middle.after] == ["Pins were read."]
    edge = browse(index).get_passage(chunks[0].chunk_id, context=3)
    assert edge.before == [] and len(edge.after) == 3
    assert browse(index).get_passage(chunks[0].chunk_id).after == []


def test_get_passage_stays_in_the_project(index):
    theirs = BrowseService(project="q", collection="cq", index=index)
    chunk = theirs.find_chunks("smith2020").passages[0].chunk_id
    with pytest.raises(ConfigError, match="no chunk"):
        browse(index).get_passage(chunk)
    with pytest.raises(ConfigError, match="no chunk"):
        browse(index).get_passage("not-a-uuid")
    with pytest.raises(ConfigError, match="0 to 3"):
        browse(index).get_passage(chunk, context=4)


def test_a_passage_opens_only_its_own_papers_file_and_says_when_it_is_gone(index, tmp_path):
    chunk = browse(index).find_chunks("smith2020").passages[3].chunk_id
    assert browse(index).document_file(chunk).path == tmp_path / "smith2020.pdf"
    theirs = BrowseService(project="q", collection="cq", index=index)
    other = theirs.find_chunks("smith2020").passages[0].chunk_id
    with pytest.raises(ConfigError, match="no chunk"):  # another project's file: not by us
        browse(index).document_file(other)
    with pytest.raises(ConfigError, match="no chunk"):
        browse(index).document_file(str(tmp_path / "smith2020.pdf"))  # never a path
    (tmp_path / "smith2020.pdf").rename(tmp_path / "moved.pdf")
    with pytest.raises(ConfigError, match=r"smith2020\.pdf: the file of smith2020 is no longer"):
        browse(index).document_file(chunk)
    note = NoteItem("Eelgrass meadows slow the tide.", "smith2020", page=7)
    notes(index).store([note])
    (hit,) = query(index, "eelgrass tide", citekeys=("smith2020",), top_k=1).results
    assert hit.kind == "note"
    with pytest.raises(ConfigError, match="is a note stored beside the papers"):
        browse(index).document_file(hit.chunk_id)


def notes(index: FakeIndex, embedder: FakeEmbedder | None = None) -> NoteService:
    return NoteService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=embedder or FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
    )


def query(index: FakeIndex, text: str, **options):
    from citeloom.services.query import QueryOptions

    service = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=index)
    return service.search(text, QueryOptions(**options))


def test_stored_notes_are_found_and_labelled_as_notes(index):
    service = notes(index)
    note = NoteItem("Eelgrass meadows slow the tide.", "smith2020", section="4 Notes", page=7)
    report = service.store([note, NoteItem("An unattached thought on eelgrass.", tags=("idea",))])
    assert [n.citekey for n in report.notes] == ["smith2020", None]
    hits = query(index, "eelgrass tide", tags=("idea",)).results
    assert [(h.label, h.kind) for h in hits] == [("[note]", "note")]
    (hit,) = query(index, "eelgrass tide", citekeys=("smith2020",), top_k=1).results
    assert (hit.label, hit.section_path, hit.title, PassageOut.from_passage(hit).kind) == (
        "[note on @smith2020, p. 7]",
        ("4 Notes",),
        "Salt Marsh Carbon",
        "note",
    )
    paper = query(index, "marshes bury carbon", citekeys=("smith2020",), top_k=1).results[0]
    assert (paper.kind, paper.label) == ("paper", "[@smith2020, p. 1]")
    events = [e["event"] for e in service.audit.events]  # type: ignore[attr-defined]
    assert events == ["run_started", "document", "document", "run_finished"]
    before = index.collection_info("c").points
    notes(index).store([note])  # the same note again: nothing new
    assert index.collection_info("c").points == before


def test_a_note_is_rebuilt_from_the_index_with_its_tags_by_relabel_and_reindex(index, tmp_path):
    """A note lives in the index only: relabelling after a library change and reindexing
    rebuild it from there (no conversion cache holds it) and keep its own tags."""
    from citeloom.services.reindex import ReindexService

    note = NoteItem("Eelgrass meadows slow the tide.", "smith2020", page=7, tags=("idea",))
    notes(index).store([note])
    changed = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020, tags=("new",))]
    parts = dict(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(changed, fingerprint="lib-2"),
        embedder=FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
    )
    IngestService(**parts).run([tmp_path / "smith2020.pdf"])
    (hit,) = query(index, "eelgrass tide", tags=("idea",), top_k=1).results
    assert hit.label == "[note on @smith2020, p. 7]"
    only_note = SearchFilter("p", doc_ids=(note.doc_id,))
    assert {tuple(p["zotero"]["tags"]) for p in index.chunks("c", only_note, 50).values()} == {
        ("idea", "new")
    }
    report = ReindexService(**parts).run()
    assert report.switched and not report.failures
    (hit,) = query(index, "eelgrass tide", tags=("idea",), top_k=1).results
    assert (hit.label, hit.kind) == ("[note on @smith2020, p. 7]", "note")


def test_store_refuses_bad_items_before_writing(index):
    service = notes(index)
    before = index.collection_info("c").points
    with pytest.raises(ConfigError, match=f"at most {MAX_ITEMS}"):
        service.store([NoteItem("x")] * (MAX_ITEMS + 1))
    with pytest.raises(ConfigError, match="not in the project's references"):
        service.store([NoteItem("x", citekey="nobody")])
    with pytest.raises(ConfigError, match=r"items\[1\].text is empty"):
        service.store([NoteItem("x"), NoteItem("  ")])
    assert index.collection_info("c").points == before


def test_store_keeps_the_write_guard(index):
    service = notes(index, FakeEmbedder(model_id="other/model"))
    with pytest.raises(EmbeddingModelMismatch):
        service.store([NoteItem("Eelgrass.")])


def test_a_store_out_of_time_writes_nothing(index):
    service = notes(index)
    before = index.collection_info("c").points
    with pytest.raises(TimeLimitExceeded):
        service.store([NoteItem("a"), NoteItem("b")], may_write=lambda: False)
    calls = iter([False, True])
    with pytest.raises(TimeLimitExceeded):
        notes(index).store([NoteItem("a"), NoteItem("b")], should_stop=lambda: next(calls))
    assert index.collection_info("c").points == before


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        (NoteItem("x", page=10**20), r"items\[0\]\.page 100000000000000000000: give a page"),
        (NoteItem("x", page=0), r"items\[0\]\.page 0"),
        (NoteItem("x", tags=tuple(f"t{n}" for n in range(51))), r"items\[0\]\.tags: 51 given"),
        (NoteItem("x", tags=("ok", "bad\x07")), r"items\[0\]\.tags: 'bad\\x07' is not a tag"),
        (NoteItem("x", section="s" * 501), r"items\[0\]\.section: give 1 to 500"),
    ],
)
def test_a_note_that_no_output_could_render_is_refused_before_anything_is_written(
    index, item, problem
):
    before = index.collection_info("c").points
    with pytest.raises(ConfigError, match=problem):
        notes(index).store([item])
    assert index.collection_info("c").points == before


def test_a_stored_page_that_is_no_page_number_reads_as_no_page(index):
    """An index an older citeloom let a note poison (page 10^20, read back as a float)."""
    from citeloom.domain.records import passage_from_payload

    (first, payload), *_ = index.chunks("c", SearchFilter("p"), 1).items()
    poisoned = {**payload, "doc": {**payload["doc"], "page_start": 1e20, "page_end": 1e20}}
    passage = passage_from_payload(1, 0.5, first, poisoned)
    assert (passage.page_start, passage.page_label_start) == (None, None)
    assert (
        passage.label == "[@smith2020]"
        and PassageOut.from_passage(passage).dump()["page_start"] is None
    )


def test_notes_are_listed_and_deleted_and_a_paper_is_not_deleted_as_one(index):
    from citeloom.services.notes import NoteBook

    stored = notes(index).store([NoteItem("Eelgrass slows the tide.", "smith2020", page=7)])
    book = NoteBook("p", "c", index, MemoryAudit())
    (listed,) = book.stored()
    assert (listed.citekey, listed.page, listed.text) == (
        "smith2020",
        7,
        "Eelgrass slows the tide.",
    )
    paper = next(d.doc_id for d in index.documents("c", "p") if d.kind == "paper")
    with pytest.raises(ConfigError, match="not a note"):
        book.delete([stored.notes[0].doc_id, paper])
    assert len(book.stored()) == 1  # nothing deleted when one id is wrong
    assert book.delete([stored.notes[0].doc_id]) == [stored.notes[0].doc_id]
    assert book.stored() == [] and any(d.kind == "paper" for d in index.documents("c", "p"))
