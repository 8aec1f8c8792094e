"""Ingest and query services over fakes at every port."""

from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError, EmbeddingModelMismatch
from citeloom.domain.models import ConversionWarning, Reference, WarningKind
from citeloom.services.ingest import DocumentOutcome, IngestReport, IngestService
from citeloom.services.query import QueryOptions, QueryService
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020)]


def make(tmp_path: Path, index: FakeIndex, embedder: FakeEmbedder | None = None, project="p"):
    audit = MemoryAudit()
    service = IngestService(
        project=project,
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=embedder or FakeEmbedder(),
        index=index,
        audit=audit,
    )
    return service, audit


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    write(
        folder,
        "a.pdf",
        "TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes bury carbon.\f# 2 Results\nBurial was fast.",
    )
    write(folder, "b.pdf", "TITLE Unknown Paper\nSome text about quiet offices.")
    write(folder, "broken.pdf", "BROKEN")
    write(folder, "notes.txt", "ignored: not a supported type")
    return folder


def test_ingest_reports_each_document_and_goes_on_after_a_failure(tmp_path, library):
    index = FakeIndex()
    service, audit = make(tmp_path, index)
    report = service.run([library])
    by_name = {Path(d.path).name: d for d in report.documents}
    assert set(by_name) == {"a.pdf", "b.pdf", "broken.pdf"}
    assert by_name["a.pdf"].status == "ingested" and by_name["a.pdf"].citekey == "smith2020"
    assert by_name["a.pdf"].match == "title" and by_name["a.pdf"].chunks == 2
    assert by_name["b.pdf"].status == "ingested" and by_name["b.pdf"].citekey is None
    assert by_name["broken.pdf"].status == "failed" and "damaged" in by_name["broken.pdf"].error
    assert report.totals == {"documents": 3, "ingested": 2, "skipped": 0, "failed": 1, "chunks": 3}
    events = [e for e in audit.events if e["event"] == "document"]
    assert len(events) == 3
    assert {e["metadata"] for e in events if e["path"].endswith("b.pdf")} == {"MetadataMissing"}
    assert audit.events[-1]["event"] == "run_finished"


def test_reingesting_unchanged_files_skips_them_and_changes_nothing(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    before = dict(index.collections["c"]["points"])
    embedder = FakeEmbedder()
    report = make(tmp_path, index, embedder)[0].run([library])
    assert [d.status for d in report.documents if d.status != "failed"] == ["skipped", "skipped"]
    assert embedder.calls == 0
    assert index.collections["c"]["points"].keys() == before.keys()


def test_a_changed_file_replaces_its_old_chunks(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    write(library, "a.pdf", "TITLE Salt Marsh Carbon\n# 1 Intro\nRewritten text only.")
    make(tmp_path, index)[0].run([library / "a.pdf"])
    texts = [
        p.payload["fulltext"]
        for p in index.collections["c"]["points"].values()
        if p.payload["source"]["path"].endswith("a.pdf")
    ]
    assert texts == ["Rewritten text only."]


def test_paths_refused_before_the_run_are_its_first_documents_in_every_count(tmp_path, library):
    """A display told of the run (``--progress json``) counts the refused paths from its
    start, not only in the run's totals at the end (issue 42)."""
    refused = DocumentOutcome(path="/tmp/pipe", status="failed", error="/tmp/pipe: a pipe")
    told: list[tuple] = []

    class Display:
        def started(self, total: int, correlation_id: str) -> None:
            told.append(("started", total))

        def __call__(self, outcome: DocumentOutcome, number: int, total: int) -> None:
            told.append((Path(outcome.path).name, outcome.status, number, total))

        def finished(self, report: IngestReport) -> None:
            told.append(("finished", report.totals["documents"], report.totals["failed"]))

    make(tmp_path, FakeIndex())[0].run([library], progress=Display(), refused=[refused])
    assert told == [
        ("started", 4),
        ("pipe", "failed", 1, 4),
        ("a.pdf", "ingested", 2, 4),
        ("b.pdf", "ingested", 3, 4),
        ("broken.pdf", "failed", 4, 4),
        ("finished", 4, 2),
    ]


def test_write_guard_stops_before_anything_is_written(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    before = dict(index.collections["c"]["points"])
    service, audit = make(tmp_path, index, FakeEmbedder(model_id="other/model"))
    with pytest.raises(EmbeddingModelMismatch, match="other/model"):
        service.run([library])
    assert index.collections["c"]["points"] == before
    assert audit.events[-2]["event"] == "run_aborted"


@pytest.mark.parametrize(
    ("kind", "partial"), [(WarningKind.TIMEOUT, True), (WarningKind.OCR, False)]
)
def test_audit_records_ocr_pages_and_partial_conversions(tmp_path, kind, partial):
    class Scanning(FakeConverter):
        def convert(self, path, sha256):
            from dataclasses import replace

            doc = super().convert(path, sha256)
            return replace(doc, ocr_pages=(1,), warnings=(ConversionWarning(kind, "time limit"),))

    folder = tmp_path / "scans"
    folder.mkdir()
    write(folder, "scan.pdf", "TITLE Scanned\nOCR text of page one.")
    service, audit = make(tmp_path, FakeIndex())
    service.converter = Scanning()
    service.run([folder])
    (event,) = [e for e in audit.events if e["event"] == "document"]
    assert event["ocr_pages"] == [1] and event["partial"] is partial
    assert event["warnings"][0] == ("partial: time limit" if partial else "time limit")


def test_a_changed_library_relabels_stored_documents_without_reembedding(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    embedder = FakeEmbedder()
    service, audit = make(tmp_path, index, embedder)
    service.metadata = FakeMetadata(
        [*REFS, Reference("doe2021unknown", "Unknown Paper", ("Doe, Jo",), 2021)], "lib-2"
    )
    report = service.run([library])
    assert [(Path(r.path).name, r.old, r.new) for r in report.relabelled] == [
        ("b.pdf", None, "doe2021unknown")
    ]
    assert embedder.calls == 0
    labels = {
        p.payload["zotero"]["citekey"]
        for p in index.collections["c"]["points"].values()
        if p.payload["source"]["path"].endswith("b.pdf")
    }
    assert labels == {"doe2021unknown"}
    assert [e["new"] for e in audit.events if e["event"] == "relabelled"] == ["doe2021unknown"]
    b = next(d for d in report.documents if d.path.endswith("b.pdf"))
    assert (b.status, b.citekey) == ("skipped", "doe2021unknown")


def test_citekey_option_names_the_entry_of_one_file(tmp_path, library):
    index = FakeIndex()
    service, _ = make(tmp_path, index)
    report = service.run([library / "b.pdf"], citekey="smith2020")
    assert (report.documents[0].citekey, report.documents[0].match) == ("smith2020", "hint")
    with pytest.raises(ConfigError, match="one file"):
        make(tmp_path, index)[0].run([library], citekey="smith2020")
    with pytest.raises(ConfigError, match="no entry with this citekey"):
        make(tmp_path, index)[0].run([library / "b.pdf"], citekey="nobody1999")


def test_reindex_keeps_a_citekey_the_user_named(tmp_path, library):
    from citeloom.services.reindex import ReindexService

    index = FakeIndex()
    make(tmp_path, index)[0].run([library / "b.pdf"], citekey="smith2020")
    reindex = ReindexService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=FakeEmbedder("fake/bow-32", 32),
        index=index,
        audit=MemoryAudit(),
    )
    report = reindex.run()
    assert report.switched and report.documents == 1
    (doc,) = index.documents("c", "p")
    # b.pdf's own title and name match no entry: only the --citekey given earlier labels it
    assert (doc.citekey, doc.match) == ("smith2020", "hint")


def test_missing_path_is_a_usage_error(tmp_path):
    service, _ = make(tmp_path, FakeIndex())
    with pytest.raises(ConfigError, match="no such file"):
        service.run([tmp_path / "missing"])


def test_query_fuses_and_labels_and_stays_in_its_project(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index, project="p")[0].run([library])
    other = tmp_path / "other"
    other.mkdir()
    write(other, "c.pdf", "TITLE Salt Marsh Carbon\nBurial was fast in the other project too.")
    # before collections recorded their project, two configs could write into one collection;
    # the search filter still keeps p's answers p's
    theirs = FakeIndex()
    make(tmp_path, theirs, project="q")[0].run([other])
    index.upsert_points("c", list(theirs.collections["c"]["points"].values()))
    service = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=index)
    report = service.search("burial fast", QueryOptions(top_k=3))
    assert report.results, report
    top = report.results[0]
    assert top.label == "[@smith2020, p. 2]" and top.section_path == ("2 Results",)
    assert all("other project" not in r.text for r in report.results)


def test_query_on_an_empty_project_says_what_to_do(tmp_path):
    service = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=FakeIndex())
    report = service.search("anything")
    assert report.results == [] and "citeloom ingest --project p" in report.note


def test_query_refuses_a_collection_of_another_model(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    service = QueryService(project="p", collection="c", embedder=FakeEmbedder("x/y"), index=index)
    with pytest.raises(EmbeddingModelMismatch):
        service.search("burial")


class PinnedEmbedder(FakeEmbedder):
    """Vectors chosen by the test: the query points one way, each chunk where it is told."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        super().__init__(dimensions=2)
        self.vectors = vectors

    def embed_documents(self, texts):
        return [self.vectors[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]


def test_a_chunk_holding_every_rare_query_word_beats_nearer_dense_noise(tmp_path):
    # MiniLM is weak on rare technical terms: the passage that names them all may sit outside
    # the dense candidates, behind chunks that are merely about something similar. Each
    # candidate is scored by both signals, so the dense noise cannot outrank it.
    folder = tmp_path / "lib"
    folder.mkdir()
    target = "Shell crossing singularity in the Lemaitre Tolman metric."
    noise = [f"Cosmic expansion looks different from place {i}." for i in range(8)]
    vectors = {target: [0.3, 0.954], **{text: [0.6, 0.8] for text in noise}}
    write(folder, "a.pdf", "TITLE Salt Marsh Carbon\n" + "\n".join([target, *noise]))
    index = FakeIndex()
    make(tmp_path, index, embedder=PinnedEmbedder(vectors))[0].run([folder])
    query = QueryService(
        project="p",
        collection="c",
        embedder=PinnedEmbedder(vectors),
        index=index,
        candidates=2,  # the dense list holds only noise
    )
    report = query.search("Lemaitre Tolman shell crossing", QueryOptions(top_k=3, per_doc=None))
    assert report.results[0].text == target


# ---------------------------------------------------------------- query features
@pytest.fixture
def papers(tmp_path: Path) -> tuple[FakeIndex, QueryService]:
    folder = tmp_path / "lib"
    folder.mkdir()
    write(
        folder,
        "a.pdf",
        "TITLE Salt Marsh Carbon\n# 2 Methods\nCores were dated with lead isotopes at each site."
        "\n\f# 3 Results\nRestored sites accreted sediment quickly after the breach.\n"
        "Restored sites accreted sediment quickly after the breach.",
    )
    write(folder, "b.pdf", "TITLE Quiet Offices\n# 1 Intro\nQuiet hours reduce interruptions.")
    refs = [*REFS, Reference("lee2019quiet", "Quiet Offices", ("Lee, Kim",), 2019, tags=("work",))]
    index = FakeIndex()
    service, _ = make(tmp_path, index)
    service.metadata = FakeMetadata(refs)
    service.run([folder])
    query = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=index)
    return index, query


def test_quoted_phrase_is_enforced(papers):
    _, query = papers
    report = query.search('"accreted sediment quickly" sites')
    assert report.results and all("accreted sediment quickly" in r.text for r in report.results)
    assert query.search('"sediment accreted quickly"').results == []


def test_duplicate_passages_collapse(papers):
    _, query = papers
    texts = [r.text for r in query.search("restored sites accreted sediment").results]
    assert texts.count("Restored sites accreted sediment quickly after the breach.") == 1


def test_filters_by_citekey_tag_year_and_section(papers):
    _, query = papers
    only = QueryOptions(citekeys=("lee2019quiet",))
    assert {r.citekey for r in query.search("sites", only).results} == {"lee2019quiet"}
    assert {r.citekey for r in query.search("quiet", QueryOptions(tags=("work",))).results} == {
        "lee2019quiet"
    }
    old = query.search("sites", QueryOptions(year_to=2019)).results
    assert {r.citekey for r in old} == {"lee2019quiet"}
    methods = query.search("sites", QueryOptions(sections=("methods",))).results
    assert [r.section for r in methods] == ["2 Methods"]


def test_budget_stops_before_it_is_exceeded(papers):
    _, query = papers
    full = query.search("sites sediment quiet", QueryOptions(top_k=10, per_doc=None)).results
    cost = [len(f"{r.label} {r.text}".split()) for r in full]
    budget = cost[0] + cost[1]
    cut = query.search("sites sediment quiet", QueryOptions(top_k=10, per_doc=None, budget=budget))
    assert [r.chunk_id for r in cut.results] == [r.chunk_id for r in full[:2]]


def test_abstention_on_a_question_the_library_does_not_answer(papers):
    _, query = papers
    good = query.search("restored sites accreted sediment after the breach")
    assert good.answerable and good.confidence >= 0.5
    bad = query.search("volcanic ash deposition in alpine glaciers")
    assert bad.results and not bad.answerable and bad.confidence < 0.5


def test_a_run_that_wrote_optimises_the_index_once_and_a_run_that_did_not_never(tmp_path, library):
    index = FakeIndex()
    make(tmp_path, index)[0].run([library])
    assert index.optimized == ["c"]  # once for two new documents, not per document
    service, audit = make(tmp_path, index)
    service.run([library])  # everything skipped
    assert index.optimized == ["c"]
    assert "index_optimized" not in [e["event"] for e in audit.events]


def test_top_k_six_means_six_also_with_a_budget(tmp_path):
    """Issue 21: 6 was taken for "not set", so `--top-k 6 --budget N` returned up to 50."""
    index = FakeIndex()
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(12):
        write(folder, f"paper{number}.pdf", f"TITLE Marsh {number}\nMarshes bury carbon {number}.")
    make(tmp_path, index)[0].run([folder])
    service = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=index)
    marsh = "marshes bury carbon"
    many = service.search(marsh, QueryOptions(budget=10_000, per_doc=None)).results
    assert len(many) > 6  # unset: the budget decides
    assert (
        len(service.search(marsh, QueryOptions(top_k=6, budget=10_000, per_doc=None)).results) == 6
    )
    assert len(service.search(marsh, QueryOptions(per_doc=None)).results) == 6  # the default
