"""Relations where a paper is cited, over fakes: query results flagged and the version of
record first between near-ties, check notes beside an unchanged verdict, the facts ingest
records for relations, and a broken relations file stopping an ingest before it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError
from citeloom.domain.models import ConvertedDocument, MetadataMatch, Reference, Resemblance
from citeloom.domain.record_check import record_problem
from citeloom.domain.records import label_fields, passage_from_payload
from citeloom.domain.relations import Relation, RelationGraph
from citeloom.services.check import CheckService
from citeloom.services.evidence import SentenceEvidence
from citeloom.services.ingest import IngestService
from citeloom.services.query import QueryOptions, QueryService
from citeloom.services.relation_words import note_message
from citeloom.services.usecases.check import CitationCheckOut
from citeloom.services.usecases.ingest import IngestResponse
from citeloom.services.usecases.wire import PassageOut
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeDocumentText,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    FakeRelations,
    MemoryAudit,
)
from tests.unit.test_answer import PAGE2, PAGE3, SHA, store

GRAPH = RelationGraph(
    [
        Relation("version_of", "ardel2022preprint", "ardel2023marsh", "same title and authors"),
        Relation("retracted", "lee2019quiet", None, "status: retracted"),
    ]
)
TEXT = f"{PAGE2}\n{PAGE3}"


@pytest.fixture
def two_versions():
    """The preprint and the journal article hold the same text; a third paper is retracted."""
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    store(index, embedder, "c" * 64, "ardel2022preprint", [(TEXT, ("3 Results",), 2, 3)])
    store(index, embedder, SHA, "ardel2023marsh", [(TEXT, ("3 Results",), 2, 3)])
    quiet = [("Quiet hours cut interruptions.", ("1 Intro",), 1, 1)]
    store(index, embedder, "b" * 64, "lee2019quiet", quiet)
    texts = FakeDocumentText({sha: {2: PAGE2, 3: PAGE3} for sha in (SHA, "c" * 64)})
    return index, embedder, texts


def query(index, embedder, relations=None) -> QueryService:
    return QueryService(
        project="p", collection="c", embedder=embedder, index=index, relations=relations
    )


def test_results_of_two_versions_are_both_shown_flagged_the_record_first(two_versions):
    index, embedder, _ = two_versions
    report = query(index, embedder, FakeRelations(GRAPH)).search(
        "restored marshes accreted sediment", QueryOptions(top_k=3)
    )
    keys = [p.citekey for p in report.results]
    # the same passage in both versions: neither collapsed into the other, record first
    assert keys[:2] == ["ardel2023marsh", "ardel2022preprint"]
    record, preprint = report.results[0], report.results[1]
    assert preprint.flags.superseded_by == "ardel2023marsh"
    assert [(v.citekey, v.record) for v in record.flags.versions] == [("ardel2022preprint", False)]
    data = PassageOut.from_passage(preprint).dump()
    assert data["superseded_by"] == "ardel2023marsh" and data["retracted"] is False
    assert data["versions"] == [{"citekey": "ardel2023marsh", "version_of_record": True}]
    assert data["banner"] == "superseded by @ardel2023marsh (the version of record)"


def test_without_relations_the_two_copies_collapse_as_near_duplicates(two_versions):
    index, embedder, _ = two_versions
    report = query(index, embedder).search("restored marshes accreted sediment")
    assert sum(p.citekey in ("ardel2023marsh", "ardel2022preprint") for p in report.results) == 1


def test_check_notes_the_version_to_cite_and_warns_of_a_retraction_verdicts_unchanged(
    two_versions,
):
    index, embedder, texts = two_versions
    draft = (
        "Restored marshes accreted sediment at 6.8 mm per year after the breach "
        "[@ardel2022preprint, p. 3].\n\nQuiet hours cut interruptions [@lee2019quiet, p. 1].\n\n"
        "Restored marshes accreted sediment at 6.8 mm per year [@nobody2020, p. 3]."
    )
    keys = ["ardel2022preprint", "ardel2023marsh", "lee2019quiet"]

    def checker(relations):
        service = query(index, embedder, relations)
        evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
        return CheckService(service, evidence, keys)

    without = checker(None).check(draft, "d.md")
    report = checker(FakeRelations(GRAPH)).check(draft, "d.md")
    assert [c.verdict for c in report.checks] == [c.verdict for c in without.checks]
    assert report.ok == without.ok
    preprint, retracted, unknown = report.checks
    ((severity, message, cite),) = [
        (n.severity, note_message(n), n.citekey) for n in preprint.notes
    ]
    assert (severity, cite) == ("note", "ardel2023marsh") and "cite @ardel2023marsh" in message
    assert [n.severity for n in retracted.notes] == ["warning"]
    assert CitationCheckOut.of(retracted).dump()["retracted"] is True
    assert unknown.notes == () and CitationCheckOut.of(unknown).dump()["notes"] == []


def test_ingest_records_the_facts_relations_are_inferred_from():
    """arXiv's stamp on page 1 and the other entries page 1 fits, in the payload, read back
    by every query and by inspect, and accepted by an import's record check."""
    ref = Reference("x2009", "Ultra light bosonic dark matter and CMB", ("Montoya, Ivan",), 2009)
    document = ConvertedDocument(
        "/p/0908.0054.pdf", "d" * 64, ref.title, 4, (), "fake",
        margin_text="arXiv:0908.0054v1 [astro-ph.CO] 1 Aug 2009",
    )  # fmt: skip
    match = MetadataMatch(ref, "arxiv", 1.0, also=(Resemblance("y2010", 0.97, 1.0),))
    fields = label_fields(match, document, "lib")
    assert fields["doc"]["arxiv_stamp"] == "0908.0054v1"
    assert fields["zotero"]["also_fits"] == [{"citekey": "y2010", "score": 0.97, "authors": 1.0}]
    payload = {
        "project": "p", "doc_id": "d", "chunk_index": 0, "source": {"path": "/p/a.pdf"},
        "fulltext": "x", **fields,
    }  # fmt: skip
    assert record_problem(payload) is None
    passage = passage_from_payload(1, 0.5, "id", payload)
    assert passage.facts is not None
    assert (passage.facts.arxiv_stamp, passage.facts.also_fits) == (
        "0908.0054v1", (Resemblance("y2010", 0.97, 1.0),),
    )  # fmt: skip
    payload["zotero"]["also_fits"] = [{"citekey": "y2010"}]
    assert "also_fits" in (record_problem(payload) or "")


def _ingest(tmp_path: Path, relations: FakeRelations) -> tuple[IngestService, FakeIndex]:
    index = FakeIndex()
    service = IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata([Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020)]),
        embedder=FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
        relations=relations,
    )
    (tmp_path / "a.pdf").write_text("TITLE Salt Marsh Carbon\nMarshes bury carbon.", "utf-8")
    return service, index


def test_ingest_counts_the_relations_and_a_broken_relations_file_stops_it_first(tmp_path):
    graph = RelationGraph(
        [Relation("version_of", "a", "b", "x"), Relation("version_of", "c", "d", "y", "possible")]
    )
    service, index = _ingest(tmp_path, FakeRelations(graph))
    report = service.run([tmp_path])
    assert report.relations == {"certain": 1, "possible": 1, "preprint_pdfs": 0, "problems": 0}
    assert IngestResponse.of(report).dump()["relations"]["certain"] == 1
    broken = FakeRelations(error=ConfigError("relations.toml: unknown relation [[replaces]]"))
    service, index = _ingest(tmp_path, broken)
    with pytest.raises(ConfigError, match="replaces"):
        service.run([tmp_path])
    assert index.collections == {}  # nothing written, not even the collection


def test_every_door_writes_the_relation_fields_of_one_model(two_versions):
    """The CLI's --json and HTTP validate against RelationFlags; MCP writes the same keys."""
    from citeloom.entrypoints.mcp_views import passage_json
    from citeloom.services.usecases.check import CitationCheckOut
    from citeloom.services.usecases.wire import PassageOut, RelationFlags

    index, embedder, _ = two_versions
    report = query(index, embedder, FakeRelations(GRAPH)).search("restored marshes accreted")
    fields = set(RelationFlags.model_fields)
    for passage in report.results:
        mcp = passage_json(PassageOut.from_passage(passage), 800, False)
        cli = PassageOut.from_passage(passage).dump()
        assert {k: mcp[k] for k in fields} == {k: cli[k] for k in fields}
    assert fields <= set(CitationCheckOut.model_fields)
