"""One suite, every Index adapter: Qdrant Edge (embedded), qdrant-client against its local
engine, and a real Qdrant server when QDRANT_URL is set. Same inputs, same answers."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from citeloom.adapters.qdrant.collection_meta import new_meta
from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
from citeloom.adapters.qdrant.server_engine import ServerEngine
from citeloom.domain.errors import (
    CollectionOwnerMismatch,
    EmbeddingModelMismatch,
    IndexUnavailable,
    LanguagesMismatch,
)
from citeloom.domain.ids import chunk_id
from citeloom.domain.models import Chunk, ConvertedDocument, IndexPoint, MetadataMatch, Reference
from citeloom.domain.records import build_payload
from citeloom.ports.index import SearchFilter

pytestmark = pytest.mark.real

# One contract for every Index: the embedded engine, the server adapter on qdrant-client's
# in-process engine, the fake the service tests use, and a live server when QDRANT_URL is set.
BACKENDS = ["edge", "client-local", "fake", "server"]


@pytest.fixture(params=BACKENDS)
def index(request, tmp_path: Path):
    if request.param == "edge":
        idx = QdrantIndex(EdgeEngine(tmp_path / "qdrant"))
    elif request.param == "fake":
        from tests.fakes import FakeIndex

        idx = FakeIndex()
    elif request.param == "client-local":
        from qdrant_client import QdrantClient

        idx = QdrantIndex(ServerEngine(client=QdrantClient(":memory:")))
    else:
        if not os.environ.get("QDRANT_URL"):
            pytest.skip("no live Qdrant server: set QDRANT_URL (docker compose up) to include it")
        idx = QdrantIndex(
            ServerEngine(url=os.environ["QDRANT_URL"], api_key=os.environ.get("QDRANT_API_KEY"))
        )
    with idx:  # every Index closes at the end of a with block
        yield idx


def collection() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def vec(*xs: float) -> list[float]:
    v = list(xs) + [0.0] * (4 - len(xs))
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def points(doc_id: str, path: str, texts: list[str], vectors, project="p", ref=None, year=None):
    document = ConvertedDocument(path, doc_id * 4, "T", 3, (), "test")
    match = MetadataMatch(ref, "title" if ref else None)
    out = []
    for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        chunk = Chunk(doc_id, i, text, text, ("1 Intro",), i + 1, i + 1, 5)
        payload = build_payload(
            project=project,
            chunk=chunk,
            document=document,
            match=match,
            embed_model="m",
            ingest_id="run",
        )
        out.append(
            IndexPoint(chunk_id(doc_id, ("1 Intro",), i + 1, i + 1, "m", i), vector, text, payload)
        )
    return out


def test_write_guard_refuses_another_model(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.ensure_collection(name, "m", 4, project="p")  # same model: fine
    with pytest.raises(EmbeddingModelMismatch) as error:
        index.ensure_collection(name, "other", 4, project="p")
    assert "'m'" in str(error.value) and "'other'" in str(error.value)
    info = index.collection_info(name)
    assert (info.embed_model, info.dimensions, info.points) == ("m", 4, 0)


def test_a_collection_is_its_projects_and_refuses_another_before_writing(index):
    """Issue 42: another config naming the same index and collection under another project
    name read, wrote into and dropped the first project's collection."""
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.replace_document(
        name, "d1", "a.pdf", points("d1", "a.pdf", ["x", "y"], [vec(1), vec(0, 1)])
    )
    index.check_owner(name, "p")
    assert index.collection_info(name).owner == "p"
    for write in (
        lambda: index.ensure_collection(name, "m", 4, project="q"),
        lambda: index.ensure_collection(name, "other", 4, project="q"),  # the owner comes first
        lambda: index.check_owner(name, "q"),
    ):
        with pytest.raises(CollectionOwnerMismatch) as error:
            write()
        message = str(error.value)
        assert f"collection '{name}' belongs to project 'p'" in message
        assert "calls its project 'q'" in message and "rename-project p q" in message
    info = index.collection_info(name)
    assert (info.owner, info.points) == ("p", 2)
    index.check_owner(collection(), "q")  # no collection yet: nobody's


def legacy(index, name: str) -> None:
    """A collection as citeloom made it before collections recorded their project."""
    if isinstance(index, QdrantIndex):
        meta = new_meta(name, "m", 4, project="unused")
        del meta["project"]
        index.engine.create(name, meta)
    else:
        index.ensure_collection(name, "m", 4, project="unused")
        index.collections[name]["owner"] = None


def test_a_collection_made_before_owners_is_adopted_by_the_first_project_to_write(index):
    name = collection()
    legacy(index, name)
    assert index.collection_info(name).owner is None
    index.check_owner(name, "q")  # reading it is anyone's until a project writes
    index.ensure_collection(name, "m", 4, project="q")
    assert index.collection_info(name).owner == "q"
    with pytest.raises(CollectionOwnerMismatch):
        index.ensure_collection(name, "m", 4, project="p")


def test_a_collection_made_before_owners_is_the_one_project_whose_chunks_it_holds(index):
    """An upgrade protects a collection before anything writes to it again."""
    name = collection()
    legacy(index, name)
    index.upsert_points(name, points("d1", "a.pdf", ["salt marsh"], [vec(1)]))  # all p's
    assert index.collection_info(name).owner is None
    index.check_owner(name, "p")
    for refused in (
        lambda: index.check_owner(name, "q"),
        lambda: index.ensure_collection(name, "m", 4, project="q"),
    ):
        with pytest.raises(CollectionOwnerMismatch) as error:
            refused()
        assert (error.value.owner, error.value.project) == ("p", "q")
    assert index.collection_info(name).owner is None  # nothing recorded by a refusal
    index.upsert_points(name, points("d2", "b.pdf", ["tidal flat"], [vec(0, 1)], project="x"))
    index.check_owner(name, "q")  # two projects' chunks: no one's until a project writes
    index.ensure_collection(name, "m", 4, project="q")
    assert index.collection_info(name).owner == "q"


def test_a_renamed_project_takes_its_points_and_its_collection_over(index):
    name = collection()
    staged = f"{name}@2"  # a reindexed project: the name points at another collection
    index.ensure_collection(staged, "m", 4, project="p")
    index.switch_collection(name, staged)
    index.replace_document(
        name,
        "d1",
        "a.pdf",
        points("d1", "a.pdf", ["salt marsh", "tidal flat"], [vec(1), vec(1, 1)]),
    )
    index.upsert_points(name, points("d2", "b.pdf", ["salt"], [vec(1)], project="x"))

    assert index.hand_over(name, "p", "r") == 2
    assert index.collection_info(name).owner == "r"
    assert index.collection_info(staged).owner == "r"
    assert [(d.doc_id, d.chunks) for d in index.documents(name, "r")] == [("d1", 2)]
    assert index.documents(name, "p") == []
    hits = index.text_search(name, "salt", SearchFilter("r"), 5)
    assert {h.payload["doc_id"] for h in hits} == {"d1"}  # x's chunk stays x's
    assert [d.doc_id for d in index.documents(name, "x")] == ["d2"]
    index.check_owner(name, "r")
    with pytest.raises(CollectionOwnerMismatch):
        index.check_owner(name, "p")
    assert index.hand_over(name, "p", "r") == 0  # run again: nothing left to move


def test_replace_document_keeps_exactly_one_copy(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.replace_document(
        name,
        "d1",
        "a.pdf",
        points("d1", "a.pdf", ["x", "y", "z"], [vec(1), vec(0, 1), vec(0, 0, 1)]),
    )
    index.replace_document(
        name,
        "d1",
        "a.pdf",
        points("d1", "a.pdf", ["x", "y", "z"], [vec(1), vec(0, 1), vec(0, 0, 1)]),
    )
    assert index.collection_info(name).points == 3
    # the file changed: new content hash, same path; old chunks must go
    index.replace_document(name, "d2", "a.pdf", points("d2", "a.pdf", ["new"], [vec(1, 1)]))
    docs = index.documents(name, "p")
    assert [(d.doc_id, d.chunks) for d in docs] == [("d2", 1)]


def test_replace_removes_older_copies_by_content_or_path_and_nothing_else(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.replace_document(
        name, "d1", "a.pdf", points("d1", "a.pdf", ["x", "y"], [vec(1), vec(0, 1)])
    )
    index.replace_document(name, "d2", "b.pdf", points("d2", "b.pdf", ["z"], [vec(0, 0, 1)]))
    # the same content moved to another path and chunked anew (one chunk now): one copy, at
    # the new path, and the other document as it was
    moved = points("d1", "new/a.pdf", ["x y"], [vec(1)])
    index.replace_document(name, "d1", "new/a.pdf", moved)
    docs = index.documents(name, "p")
    assert sorted((d.doc_id, d.path, d.chunks) for d in docs) == [
        ("d1", "new/a.pdf", 1),
        ("d2", "b.pdf", 1),
    ]
    # a document that now has no chunks: its older copy goes, the rest stays
    index.replace_document(name, "d2", "b.pdf", [])
    assert [d.doc_id for d in index.documents(name, "p")] == ["d1"]
    assert index.collection_info(name).points == 1


def test_searches_rank_and_stay_in_the_project(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.replace_document(
        name,
        "d1",
        "a.pdf",
        points(
            "d1", "a.pdf", ["salt marsh carbon burial", "quiet office hours"], [vec(1), vec(0, 1)]
        ),
    )
    index.replace_document(
        name,
        "d9",
        "z.pdf",
        points("d9", "z.pdf", ["salt marsh carbon burial"], [vec(1)], project="other"),
    )
    dense = index.dense_search(name, vec(1, 0.1), SearchFilter(project="p"), 10)
    assert [p.payload["fulltext"] for p in dense] == [
        "salt marsh carbon burial",
        "quiet office hours",
    ]
    assert dense[0].score > dense[1].score
    sparse = index.text_search(name, "marsh burial", SearchFilter(project="p"), 10)
    assert [p.payload["fulltext"] for p in sparse] == ["salt marsh carbon burial"]
    assert all(p.payload["project"] == "p" for p in dense + sparse)
    assert index.text_search(name, "the and of", SearchFilter(project="p"), 10) == []


def test_filters_by_citekey_and_year(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    old = Reference("old1999", "Old", year=1999)
    new = Reference("new2020", "New", year=2020)
    index.replace_document(
        name, "d1", "a.pdf", points("d1", "a.pdf", ["carbon a"], [vec(1)], ref=old)
    )
    index.replace_document(
        name, "d2", "b.pdf", points("d2", "b.pdf", ["carbon b"], [vec(1)], ref=new)
    )
    hits = index.dense_search(name, vec(1), SearchFilter(project="p", citekeys=("new2020",)), 10)
    assert [h.payload["zotero"]["citekey"] for h in hits] == ["new2020"]
    hits = index.text_search(name, "carbon", SearchFilter(project="p", year_to=2000), 10)
    assert [h.payload["zotero"]["citekey"] for h in hits] == ["old1999"]


def test_field_values_list_a_projects_tags_and_collections(index):
    name = collection()
    assert index.field_values(name, "zotero.tags", SearchFilter("p")) == []  # no collection yet
    index.ensure_collection(name, "m", 4, project="p")
    a = Reference("a2020", "A", tags=("to-read", "soil"), collections=("Thesis/Chapter 2",))
    b = Reference("b2021", "B", tags=("soil",), collections=("Thesis\\/Chapter 2",))
    index.replace_document(
        name, "d1", "a.pdf", points("d1", "a.pdf", ["x", "y"], [vec(1)] * 2, ref=a)
    )
    index.replace_document(name, "d2", "b.pdf", points("d2", "b.pdf", ["z"], [vec(1)], ref=b))
    index.replace_document(
        name, "d3", "c.pdf", points("d3", "c.pdf", ["w"], [vec(1)], project="q", ref=b)
    )
    assert index.field_values(name, "zotero.tags", SearchFilter("p")) == ["soil", "to-read"]
    assert index.field_values(name, "zotero.collections", SearchFilter("p")) == [
        "Thesis/Chapter 2",
        "Thesis\\/Chapter 2",
    ]
    assert index.field_values(name, "zotero.tags", SearchFilter("q")) == ["soil"]


def test_payloads_and_documents(index):
    name = collection()
    assert index.collection_info(name) is None
    assert index.documents(name, "p") == []
    index.ensure_collection(name, "m", 4, project="p")
    pts = points("d1", "a.pdf", ["x", "y"], [vec(1), vec(0, 1)])
    index.replace_document(name, "d1", "a.pdf", pts)
    got = index.payloads(name, [pts[1].id])
    assert got[pts[1].id]["fulltext"] == "y"
    (doc,) = index.documents(name, "p")
    assert (doc.path, doc.chunks, doc.page_count) == ("a.pdf", 2, 3)


def test_embedded_shard_admits_one_process_at_a_time(tmp_path):
    first = QdrantIndex(EdgeEngine(tmp_path / "q"))
    first.ensure_collection("c", "m", 4, project="p")
    second = QdrantIndex(EdgeEngine(tmp_path / "q"))
    with pytest.raises(IndexUnavailable, match="index busy"):
        second.collection_info("c")
    first.close()
    assert second.collection_info("c").embed_model == "m"
    second.close()


def test_an_embedded_index_is_let_go_when_its_with_block_ends_even_by_an_error(tmp_path):
    with pytest.raises(RuntimeError), QdrantIndex(EdgeEngine(tmp_path / "q")) as first:
        first.ensure_collection("c", "m", 4, project="p")
        with pytest.raises(IndexUnavailable, match="index busy"):
            QdrantIndex(EdgeEngine(tmp_path / "q")).collection_info("c")
        raise RuntimeError("the work in the block fails")
    with QdrantIndex(EdgeEngine(tmp_path / "q")) as second:  # at once: no wait
        assert second.collection_info("c").embed_model == "m"


def test_unreachable_server_is_index_unavailable():
    index = QdrantIndex(ServerEngine(url="http://127.0.0.1:9", timeout_ms=1000))
    with pytest.raises(IndexUnavailable, match=r"127\.0\.0\.1:9"):
        index.collection_info("c")


def test_phrase_section_and_term_filters_and_counts(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    texts = [
        "the state-of-the-art method accreted sediment",
        "sediment accretion in marshes, with Threading-BuildingBlocks",
    ]
    pts = points("d1", "a.pdf", texts, [vec(1), vec(0, 1)])
    index.replace_document(name, "d1", "a.pdf", pts)
    phrase = SearchFilter(project="p", phrases=("state of the art method",))
    assert [h.payload["fulltext"] for h in index.dense_search(name, vec(1), phrase, 10)] == texts[
        :1
    ]
    assert (
        index.text_search(name, "sediment", SearchFilter("p", phrases=("accretion sediment",)), 10)
        == []
    )
    assert index.count(name, SearchFilter("p")) == 2
    assert index.count(name, SearchFilter("p", terms=("sediment",))) == 2
    assert index.count(name, SearchFilter("p", terms=("marshes",))) == 1
    assert index.count(name, SearchFilter("other", terms=("sediment",))) == 0
    # terms: every word somewhere in the chunk, in any order
    assert index.count(name, SearchFilter("p", terms=("marshes sediment",))) == 1
    # a hyphen parts words, glued words stay one: answer asks for each spelling of a name
    # (domain.text.spellings) as a phrase
    glued = SearchFilter("p", phrases=("threading buildingblocks",))
    assert index.count(name, glued) == 1
    assert index.count(name, SearchFilter("p", phrases=("threading building blocks",))) == 0
    intro = SearchFilter("p", sections=("intro",))
    assert len(index.dense_search(name, vec(1), intro, 10)) == 2
    assert index.dense_search(name, vec(1), SearchFilter("p", sections=("methods",)), 10) == []


def test_term_weights_are_the_engines_idf_and_sum_to_the_query_ceiling(index):
    import math

    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    texts = ["salt marsh carbon burial", "marsh sediment", "quiet office hours"]
    index.replace_document(
        name, "d1", "a.pdf", points("d1", "a.pdf", texts, [vec(1), vec(0, 1), vec(0, 0, 1)])
    )

    def idf(held: int) -> float:
        return math.log((3 - held + 0.5) / (held + 0.5) + 1)

    weights = index.term_weights(name, "the marsh marshes burial zebra")
    # stop words are dropped, "marshes" is the term "marsh" already weighed, "zebra" is nowhere
    assert set(weights) == {"marsh", "burial", "zebra"}
    assert weights["marsh"] == pytest.approx(idf(2), rel=1e-4)
    assert weights["burial"] == pytest.approx(idf(1), rel=1e-4)
    assert weights["zebra"] == 0.0
    assert index.term_weights(name, "the of and") == {}
    assert index.term_weights(collection(), "marsh") == {"marsh": 0.0}  # no such collection


def test_point_ids_restrict_a_search_to_candidates_and_keep_their_scores(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    texts = ["salt marsh carbon burial", "marsh sediment", "quiet office hours"]
    pts = points("d1", "a.pdf", texts, [vec(1), vec(0, 1), vec(1, 1)])
    index.replace_document(name, "d1", "a.pdf", pts)
    everything = {p.id: p.score for p in index.dense_search(name, vec(1), SearchFilter("p"), 10)}
    only = SearchFilter("p", point_ids=(pts[2].id, pts[1].id))
    dense = index.dense_search(name, vec(1), only, 10)
    assert {p.id: p.score for p in dense} == pytest.approx(
        {i: everything[i] for i in only.point_ids}
    )
    sparse = index.text_search(name, "marsh", only, 10)
    assert [p.id for p in sparse] == [pts[1].id]  # the office chunk holds no query term


def test_a_bulk_upsert_stores_whole_documents_as_replace_would(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    first = points("d1", "a.pdf", ["x", "y"], [vec(1), vec(0, 1)])
    second = points("d2", "b.pdf", ["z"], [vec(0, 0, 1)])
    index.upsert_points(name, first + second)
    index.upsert_points(name, first)  # the same points again: no duplicates
    docs = index.documents(name, "p")
    assert [(d.doc_id, d.chunks, d.complete) for d in docs] == [("d1", 2, True), ("d2", 1, True)]
    assert index.collection_info(name).points == 3
    hits = index.text_search(name, "z", SearchFilter("p"), 10)
    assert [h.payload["doc_id"] for h in hits] == ["d2"]


def test_optimize_keeps_every_answer_and_later_writes(index):
    name = collection()
    index.ensure_collection(name, "m", 4, project="p")
    index.upsert_points(
        name,
        points("d1", "a.pdf", ["salt marsh", "tidal flat"], [vec(1), vec(1, 1)])
        + points("d2", "b.pdf", ["quiet office"], [vec(0, 0, 1)]),
    )
    index.delete_document(name, "d2")  # a deleted point: what optimising vacuums

    def answers() -> tuple:
        dense = index.dense_search(name, vec(1, 0.2), SearchFilter("p"), 10)
        text = index.text_search(name, "marsh", SearchFilter("p"), 10)
        docs = index.documents(name, "p")
        return [(h.id, round(h.score, 5)) for h in dense], [h.id for h in text], docs

    before = answers()
    index.optimize(name)
    assert answers() == before
    index.replace_document(name, "d1", "a.pdf", points("d1", "a.pdf", ["mudflat"], [vec(0, 1)]))
    assert [
        h.payload["fulltext"] for h in index.text_search(name, "mudflat", SearchFilter("p"), 5)
    ] == ["mudflat"]
    assert index.collection_info(name).points == 1


def test_chunks_browse_a_document_by_metadata_and_chunk_range(index):
    name = collection()
    assert index.chunks(name, SearchFilter("p"), 10) == {}  # no such collection
    index.ensure_collection(name, "m", 4, project="p")
    ref = Reference("ardel2023", "Marsh", year=2023)
    texts = ["first", "second", "third", "fourth"]
    pts = points("d1", "a.pdf", texts, [vec(1)] * 4, ref=ref)
    index.replace_document(name, "d1", "a.pdf", pts)
    index.replace_document(
        name, "d2", "b.pdf", points("d2", "b.pdf", ["elsewhere"], [vec(1)], project="other")
    )
    every = index.chunks(name, SearchFilter("p", citekeys=("ardel2023",)), 100)
    assert sorted(p["fulltext"] for p in every.values()) == sorted(texts)
    assert set(every) == {p.id for p in pts}
    middle = index.chunks(name, SearchFilter("p", doc_ids=("d1",), chunk_range=(1, 2)), 100)
    assert sorted(p["chunk_index"] for p in middle.values()) == [1, 2]
    assert len(index.chunks(name, SearchFilter("p"), 3)) == 3  # the limit holds
    assert index.chunks(name, SearchFilter("p", doc_ids=("d2",)), 10) == {}  # other project


def test_a_server_opening_per_call_lets_a_waiting_opener_go_first(tmp_path):
    import threading
    import time

    holder = QdrantIndex(EdgeEngine(tmp_path / "q"))
    holder.ensure_collection("c", "m", 4, project="p")  # holds the shard, as a server's call does
    order: list[str] = []

    def open_as(name: str, polite: bool) -> None:
        index = QdrantIndex(EdgeEngine(tmp_path / "q", busy_timeout_s=10, yield_to_waiters=polite))
        index.collection_info("c")
        order.append(name)
        time.sleep(0.3)
        index.close()

    ingest = threading.Thread(target=open_as, args=("ingest", False))
    ingest.start()
    time.sleep(0.3)  # the ingest is waiting now
    server = threading.Thread(target=open_as, args=("server", True))
    server.start()
    time.sleep(0.2)
    holder.close()
    ingest.join()
    server.join()
    assert order == ["ingest", "server"]


def test_switch_drop_relabel_delete_and_scroll_agree(index):
    name, other = collection(), collection()
    for target in (name, other):
        index.ensure_collection(target, "m", 4, project="p")
    index.upsert_points(
        name,
        points("d1", "a.pdf", ["salt marsh", "tidal flat"], [vec(1), vec(1, 1)])
        + points("d2", "b.pdf", ["quiet office"], [vec(0, 0, 1)]),
    )
    index.upsert_points(other, points("d3", "c.pdf", ["mudflat"], [vec(0, 1)]))

    index.relabel_document(name, "d1", {"zotero": {"citekey": "smith2020"}})
    hits = index.text_search(name, "marsh", SearchFilter("p", citekeys=("smith2020",)), 5)
    assert [h.payload["fulltext"] for h in hits] == ["salt marsh"]
    assert {h.payload["doc_id"] for h in hits} == {"d1"}

    index.delete_document(name, "d2")
    assert [d.doc_id for d in index.documents(name, "p")] == ["d1"]

    pages, offset, seen = 0, None, []
    while True:  # every point once, in pages, with its vector and text
        batch, offset = index.scroll_points(name, offset, limit=1)
        seen += [(p.text, len(p.vector)) for p in batch]
        pages += 1
        if offset is None:
            break
    assert sorted(seen) == [("salt marsh", 4), ("tidal flat", 4)] and pages >= 2

    # the collection the name used to be is returned for the caller to drop (embedded) or is
    # already gone (a server cannot alias a name a collection still holds): the same end state
    old = index.switch_collection(name, other)
    assert old in (name, None)
    if old is not None:
        index.drop_collection(old)
    assert index.physical(name) == other
    assert [d.doc_id for d in index.documents(name, "p")] == ["d3"]
    assert index.collection_info(name).points == 1


def test_collections_are_listed_and_a_name_can_be_unaliased(index):
    name = collection()
    staged = f"{name}@2"
    assert name not in index.list_collections()
    index.ensure_collection(staged, "m", 4, project="p")
    index.upsert_points(staged, points("d1", "a.pdf", ["salt marsh"], [vec(1)]))
    assert staged in index.list_collections()
    old = index.switch_collection(name, staged)
    assert old in (name, None) and index.physical(name) == staged
    assert index.collection_info(name).points == 1

    index.remove_alias(name)  # what drop does once the collections are gone
    index.remove_alias(name)  # and again: nothing left to remove is no error
    assert index.physical(name) == name and index.collection_info(name) is None
    index.drop_collection(staged)
    assert staged not in index.list_collections()


def test_a_server_collection_made_without_payload_indexes_gets_them_on_open():
    from qdrant_client import QdrantClient

    client = QdrantClient(":memory:")
    older = QdrantIndex(ServerEngine(client=client))
    older.ensure_collection("old", "m", 4, project="p")
    made: list[str] = []
    plain = client.create_payload_index

    def recording(collection_name, field_name, **kwargs):
        made.append(field_name)
        return plain(collection_name, field_name, **kwargs)

    client.create_payload_index = recording  # the in-process engine keeps no payload schema
    QdrantIndex(ServerEngine(client=client)).ensure_collection("old", "m", 4, project="p")
    assert {"project", "doc_id", "fulltext", "doc.year"} <= set(made)


GERMAN = ("german", "english")


def test_write_guard_refuses_other_languages(index):
    name = collection()
    index.ensure_collection(name, "m", 4, GERMAN, project="p")
    index.ensure_collection(
        name, "m", 4, ("english", "german"), project="p"
    )  # the order changes no term
    index.check_model(name, "m")  # a caller that does not say: the model alone is checked
    for call in (
        lambda: index.ensure_collection(name, "m", 4, project="p"),
        lambda: index.check_model(name, "m", ("english",)),
    ):
        with pytest.raises(LanguagesMismatch) as error:
            call()
        assert "german, english" in str(error.value) and "citeloom reindex" in str(error.value)
        assert error.value.exit_code == 4
    assert index.collection_info(name).languages == GERMAN


def test_a_german_collection_stems_german_and_english_words(index):
    name, english = collection(), collection()
    texts = [
        "Die Bodenerosion auf den Böden der Äcker nimmt nach Starkregen zu.",
        "Soil erosion was measured on eroded loess slopes.",
        "Der Hund und die Katze schlafen.",
    ]
    vectors = [vec(1), vec(0, 1), vec(0, 0, 1)]
    for target, languages in ((name, GERMAN), (english, ("english",))):
        index.ensure_collection(target, "m", 4, languages, project="p")
        index.replace_document(target, "d1", "a.pdf", points("d1", "a.pdf", texts, vectors))

    def found(target: str, query: str) -> list[str]:
        hits = index.text_search(target, query, SearchFilter(project="p"), 10)
        return [h.payload["fulltext"] for h in hits]

    # inflections only the German stemmer brings together (plural, umlaut)
    assert found(name, "Bodenerosionen Boden") == [texts[0]]
    assert found(english, "Bodenerosionen Boden") == []
    assert found(name, "eroding soils") == [texts[1]]  # English words keep their stems
    # German stop words are no terms, English ones neither, in either language
    assert found(name, "und die der") == [] and found(name, "the of and") == []
    assert found(english, "und die der") != []
    weights = index.term_weights(name, "die Bodenerosionen und der Boden im Starkregen")
    assert set(weights) == {"Bodenerosionen", "Boden", "Starkregen"}
    assert all(w > 0 for w in weights.values())
