"""The answer service over fakes: verbatim sentences, the page each is on, verification."""

from __future__ import annotations

import pytest

from citeloom.domain.ids import chunk_id
from citeloom.domain.models import Chunk, ConvertedDocument, IndexPoint, MetadataMatch, Reference
from citeloom.domain.records import build_payload
from citeloom.services.answer import AnswerReport, AnswerService
from citeloom.services.evidence import SentenceEvidence
from citeloom.services.query import QueryService
from citeloom.services.usecases.answer import AnswerResponse
from tests.fakes import FakeDocumentText, FakeEmbedder, FakeIndex

SHA = "a" * 64
PAGE2 = "Cores were taken at every site in spring. They were dated with lead isotopes."
PAGE3 = (
    "Restored marshes accreted sediment at 6.8 mm per year after the breach. "
    "Reference marshes accreted far less sediment in the same years."
)
OTHER = "Quiet hours reduce interruptions in open-plan offices by a third."


def store(
    index: FakeIndex,
    embedder: FakeEmbedder,
    sha: str,
    citekey: str,
    chunks,
    page: str | None = None,
    source: str = "",
) -> None:
    """Chunks of a 4-page paper; ``page`` is its printed range as the library holds it."""
    index.ensure_collection("c", embedder.model_id, embedder.dimensions, project="p")
    ref = Reference(citekey, f"Paper {citekey}", ("Ardel, Ines",), 2023, page=page)
    document = ConvertedDocument(source or f"{citekey}.pdf", sha, ref.title, 4, (), "fake")
    points = []
    for number, (text, path, start, end) in enumerate(chunks):
        chunk = Chunk(sha[:16], number, text, text, path, start, end, len(text.split()))
        payload = build_payload(
            project="p",
            chunk=chunk,
            document=document,
            match=MetadataMatch(ref, "hint"),
            embed_model=embedder.model_id,
            ingest_id="t",
        )
        cid = chunk_id(sha[:16], path, start, end, embedder.model_id, number)
        points.append(IndexPoint(cid, embedder.embed_query(text), text, payload))
    index.upsert_points("c", points)


@pytest.fixture
def library():
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    section = ("3 Results", "3.1 Accretion rates")
    store(index, embedder, SHA, "ardel2023marsh", [(f"{PAGE2}\n{PAGE3}", section, 2, 3)])
    store(index, embedder, "b" * 64, "lee2019quiet", [(OTHER, ("1 Intro",), 1, 1)])
    texts = FakeDocumentText({SHA: {2: PAGE2, 3: PAGE3}, "b" * 64: {1: OTHER}})
    return index, embedder, texts


def service(index, embedder, texts) -> AnswerService:
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)
    evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
    return AnswerService(query, evidence)


def test_the_answer_quotes_the_sentence_verbatim_with_the_page_it_is_on(library):
    report = service(*library).answer("how fast did restored marshes accrete sediment")
    assert not report.fallback
    best = report.citations[0]
    assert best.quote == "Restored marshes accreted sediment at 6.8 mm per year after the breach."
    # the chunk spans pages 2-3; the sentence is on page 3
    assert (best.citekey, best.page, best.label) == ("ardel2023marsh", 3, "[@ardel2023marsh, p. 3]")
    data = AnswerResponse.from_report(report).dump()
    assert set(data) == {"question", "project", "answer", "citations", "confidence", "fallback"}
    assert data["citations"][0] == {
        "citekey": "ardel2023marsh",
        "page": 3,
        "section_path": ["3 Results", "3.1 Accretion rates"],
        "quote": best.quote,
        "chunk_id": best.passage.chunk_id,
        "source": best.passage.source,  # the file to open, at every door
        "verified": True,
        "page_label": "3",
        "label": "[@ardel2023marsh, p. 3]",
        "kind": "paper",
        "zotero": None,  # not a PDF read from a Zotero data directory
        # no other version, retraction or conflict known
        "versions": [],
        "superseded_by": None,
        "retracted": False,
        "conflicts_with": [],
        "related": [],
        "banner": None,
    }
    assert data["answer"].startswith(best.quote) and 0.5 <= data["confidence"] <= 1
    assert len(report.citations) <= 3


def test_a_sentence_missing_from_its_page_of_the_stored_text_is_never_shown(library):
    index, embedder, texts = library
    # the stored conversion says otherwise (e.g. the index is stale): nothing to verify against
    texts.documents[SHA] = {2: PAGE2, 3: "Reference marshes accreted far less sediment."}
    report = service(index, embedder, texts).answer(
        "how fast did restored marshes accrete sediment"
    )
    assert all("6.8 mm" not in s.quote for s in report.citations)


def test_stored_text_is_compared_after_the_indexing_normalisation(library):
    index, embedder, texts = library
    texts.documents[SHA] = {2: PAGE2, 3: PAGE3.replace("after", "af\u00adter").replace(" ", "  ")}
    report = service(index, embedder, texts).answer(
        "how fast did restored marshes accrete sediment"
    )
    assert report.citations[0].page == 3 and report.citations[0].verified


def test_without_a_stored_conversion_only_one_page_chunks_can_be_quoted(library):
    index, embedder, _ = library
    report = service(index, embedder, FakeDocumentText()).answer(
        "how fast did restored marshes accrete sediment"
    )
    assert all(s.citekey != "ardel2023marsh" for s in report.citations)
    quiet = service(index, embedder, FakeDocumentText()).answer(
        "do quiet hours reduce interruptions in open-plan offices"
    )
    assert not quiet.fallback and quiet.citations[0].page == 1


def test_a_question_the_library_does_not_answer_gets_the_fallback_and_leads(library):
    report = service(*library).answer("volcanic ash deposition on alpine glaciers")
    assert report.fallback and report.answer is None and report.citations == []
    assert report.confidence < 0.5
    assert report.leads  # the nearest passages, to read on
    assert AnswerResponse.from_report(report).dump()["leads"][0]["chunk_id"]


def dump(report: AnswerReport) -> dict[str, object]:
    return AnswerResponse.from_report(report).dump()


def test_a_servers_second_answer_embeds_no_sentence_again_and_answers_the_same(library):
    """A server keeps sentence vectors between calls; the answer must not change for it."""
    from citeloom.services.evidence import SentenceVectors

    index, embedder, texts = library
    kept = SentenceVectors()
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)

    def answer(question: str):
        evidence = SentenceEvidence(
            collection="c", embedder=embedder, index=index, texts=texts, vectors=kept
        )
        return AnswerService(query, evidence).answer(question)

    question = "how fast did restored marshes accrete sediment"
    first = answer(question)
    embedded = embedder.calls
    again = answer(question)
    assert embedder.calls == embedded  # no sentence embedded twice
    fresh = service(*library).answer(question)
    assert dump(again) == dump(first) == dump(fresh)


def test_kept_sentence_vectors_stay_within_their_limit_dropping_the_least_recent():
    from citeloom.services.evidence import SentenceVectors

    embedder = FakeEmbedder()
    kept = SentenceVectors(limit=2)
    kept.vectors(["one", "two"], embedder.embed_documents)
    kept.vectors(["one", "three"], embedder.embed_documents)  # "two" is now the oldest
    assert len(kept) == 2
    calls = embedder.calls
    kept.vectors(["one", "three"], embedder.embed_documents)
    assert embedder.calls == calls
    kept.vectors(["two"], embedder.embed_documents)
    assert embedder.calls == calls + 1


def test_an_answer_within_filters_quotes_only_the_papers_they_let_through(library):
    from citeloom.services.query import QueryOptions

    question = "how fast did restored marshes accrete sediment"
    only_quiet = service(*library).answer(question, QueryOptions(citekeys=("lee2019quiet",)))
    assert only_quiet.leads and all(p.citekey == "lee2019quiet" for p in only_quiet.leads)
    assert all(s.citekey == "lee2019quiet" for s in only_quiet.citations)
    only_marsh = service(*library).answer(question, QueryOptions(citekeys=("ardel2023marsh",)))
    assert not only_marsh.fallback and only_marsh.citations[0].citekey == "ardel2023marsh"


def test_a_name_is_looked_for_in_every_spelling_across_the_project(library):
    """The only chunk naming the library is in a paper the filters leave out: the project's
    index is asked for each spelling, and the glued one is there."""
    from citeloom.services.query import QueryOptions

    index, embedder, texts = library
    text = "The simulations ran on Threading-BuildingBlocks, the task library of Intel."
    store(index, embedder, "c" * 64, "kim2020tbb", [(text, ("2 Methods",), 1, 1)])
    question = "Did the marsh surveys use Threading Building Blocks for their models?"
    within = QueryOptions(citekeys=("ardel2023marsh",))
    report = service(index, embedder, texts).answer(question, within)
    assert report.absent == []
    unknown = "Did the marsh surveys use Grand Central Dispatch for their models?"
    report = service(index, embedder, texts).answer(unknown, within)
    assert report.absent == ["Grand Central Dispatch"] and report.fallback


def test_the_answer_never_quotes_an_entry_of_a_reference_list():
    """A title in the paper's bibliography names another work, not what the paper says: under
    a References heading, or shaped as an entry where the heading was lost (issue 27)."""
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    title = "Quiet hours reduce interruptions in open-plan offices by a third."
    entry = f"Lee J, Park S: {title} J Office Res 2019, 12:33-40."
    chunks = [(title, ("References",), 4, 4), (entry, ("5 Discussion",), 3, 3)]
    store(index, embedder, SHA, "ardel2023marsh", chunks)
    texts = FakeDocumentText({SHA: {3: entry, 4: title}})
    report = service(index, embedder, texts).answer("do quiet hours reduce interruptions")
    assert report.fallback
    assert all(title not in c.quote for c in report.citations)
