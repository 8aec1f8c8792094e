"""Does the right passage of the right paper come first? Measured on the shared papers.

Ingests ../shared/corpus/papers/ (read in place) into a throwaway project under
benchmarks/.work/papers with the library tests/data/papers.csl.json, runs the query set
benchmarks/data/paper_queries.json (kinds: keyword, question, paraphrase, quoted phrase,
OCR-only text, unanswerable) and prints, for the tuning half and the test half of the papers
(benchmarks/data/paper_split.json) and per retrieval variant, hit@1 and hit@5 per kind, where
a hit is a result with the expected citekey whose page span touches an expected page. A
page-level BM25 baseline (whole pages, no chunks, no vectors) runs alongside. For abstention
it prints how many answerable queries were wrongly marked not confident, and how many
unanswerable ones rightly so. Tune on the tuning half only. ``--sweep`` adds the fusion
policies measured against the default (benchmarks/fusions.py, docs/adr/0016); ``--train``
fits the learned one on the tuning half and prints its coefficients. Run:

    .venv/bin/python benchmarks/eval_papers.py [--sweep] [--train]
"""

from __future__ import annotations

import argparse
import logging
import math
import re
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "corpus" / "papers"
WORK = ROOT / "benchmarks" / ".work" / "papers"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import fusions, paper_queries  # noqa: E402
from benchmarks.library import remembered, write_config  # noqa: E402
from benchmarks.paper_queries import HALVES, Outcome, half, header, row, run  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.abstention import STOPWORDS  # noqa: E402
from citeloom.domain.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS  # noqa: E402
from citeloom.domain.ids import doc_id_from_sha256, sha256_of_file  # noqa: E402
from citeloom.domain.records import passage_from_payload  # noqa: E402
from citeloom.domain.text import fold_for_match  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402


def prepare() -> Path:
    return write_config(WORK, "papers", "bench-papers", ROOT / "tests" / "data" / "papers.csl.json")


def ingest(config: Path) -> None:
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        report = bootstrap.ingest_service(settings, "papers", index).run([PAPERS])
        t = report.totals
        print(f"ingest: {t['ingested']} ingested, {t['skipped']} skipped, {t['failed']} failed")
    finally:
        index.close()


# ---------------------------------------------------------------- page-level BM25 baseline
def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W_]{2,}", fold_for_match(text)) if w not in STOPWORDS]


class PageBM25:
    """Classic BM25 (k1 1.2, b 0.75) over whole pages: the baseline the issue names."""

    def __init__(self, pages: list[tuple[str, int, str]]) -> None:
        self.pages = [(key, page, Counter(words(text))) for key, page, text in pages]
        self.avg = statistics.mean(sum(c.values()) for _, _, c in self.pages) or 1.0
        df: Counter[str] = Counter()
        for _, _, counts in self.pages:
            df.update(counts.keys())
        n = len(self.pages)
        self.idf = {t: math.log((n - f + 0.5) / (f + 0.5) + 1) for t, f in df.items()}

    def search(self, query: str, k: int = 10) -> list[tuple[str, int]]:
        terms = words(query)
        scored = []
        for key, page, counts in self.pages:
            length = sum(counts.values())
            score = sum(
                self.idf.get(t, 0.0)
                * counts[t]
                * 2.2
                / (counts[t] + 1.2 * (0.25 + 0.75 * length / self.avg))
                for t in terms
            )
            if score > 0:
                scored.append((score, key, page))
        scored.sort(key=lambda s: (-s[0], s[1] or "", s[2] or 0))  # distractors have no key
        return [(key, page) for _, key, page in scored[:k]]


def page_texts(config: Path, project: str = "papers") -> list[tuple[str, int, str]]:
    """(citekey, page, text) of every page, from the conversion cache."""
    settings = bootstrap.settings(config)
    converter = bootstrap.converter(settings)
    resolver = bootstrap.metadata(settings, settings.get_project(project))
    out = []
    for pdf in sorted(PAPERS.glob("*.pdf")):
        sha = sha256_of_file(pdf)
        document = converter.convert(pdf, sha)
        key = resolver.resolve(document, hint=pdf.stem).citekey or doc_id_from_sha256(sha)
        by_page: dict[int, list[str]] = defaultdict(list)
        for block in document.blocks:
            if block.page is not None:
                by_page[block.page].append(block.text)
        out.extend((key, page, " ".join(texts)) for page, texts in sorted(by_page.items()))
    return out


# ---------------------------------------------------------------- evaluation
def baseline_search(bm25: PageBM25) -> Callable[[dict], tuple[list[tuple], bool, float]]:
    def search(query: dict) -> tuple[list[tuple], bool, float]:
        ranked = bm25.search(query["query"].replace('"', " "))
        return [(key, page, page) for key, page in ranked], False, 0.0

    return search


def service_search(
    service: QueryService, per_doc: int | None
) -> Callable[[dict], tuple[list[tuple], bool, float]]:
    def search(query: dict) -> tuple[list[tuple], bool, float]:
        report = service.search(query["query"], QueryOptions(top_k=10, per_doc=per_doc))
        results = [(r.citekey, r.page_start, r.page_end) for r in report.results]
        return results, not report.answerable, report.confidence

    return search


def print_halves(rows: list[tuple[str, list[Outcome]]]) -> None:
    for name in HALVES:
        print(f"\n{name} half\n{header()}")
        for variant, outcomes in rows:
            print(row(variant, [o for o in outcomes if half(o.query) == name]))


def variants(sweep: bool) -> list[tuple[str, dict, int | None, fusions.Fusion | None]]:
    """(row name, QueryService arguments, per_doc, fusion policy or None for the service's)."""
    per_doc = QueryOptions().per_doc
    dense_w, bm25_w = DEFAULT_WEIGHTS[DEFAULT_FUSION]
    chosen: list[tuple[str, dict, int | None, fusions.Fusion | None]] = [
        ("bm25 chunks", {"signals": "bm25"}, per_doc, None),
        ("dense chunks", {"signals": "dense"}, per_doc, None),
        (f"hybrid {DEFAULT_FUSION} {dense_w:g}:{bm25_w:g} (default)", {}, per_doc, None),
    ]
    if sweep:
        chosen += [
            ("  ... no per-doc limit", {}, None, None),
            ("  ... per-doc 1", {}, 1, None),
            *[(name, params, per_doc, policy) for name, params, policy in fusions.sweep()],
        ]
    return chosen


def train(service: QueryService, queries: list[dict]) -> list[float]:
    """The learned policy's coefficients, fitted on the answerable queries of the tuning half."""
    recorder = fusions.Recorder()
    service.fuse = recorder
    tuning = [q for q in queries if q["citekey"] is not None and half(q) == "tune"]
    samples = []
    for query in tuning:
        service.search(query["query"], QueryOptions(top_k=10))
        lists = recorder.lists[-1]
        right = set()
        for point in (p for ranked in lists for p in ranked if p.payload):
            passage = passage_from_payload(0, 0.0, point.id, point.payload or {})
            if paper_queries.is_hit(passage.citekey, passage.page_start, passage.page_end, query):
                right.add(point.id)
        samples.append((lists, right))
    return fusions.train(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="also other fusions and limits")
    parser.add_argument("--train", action="store_true", help="fit the learned fusion")
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    config = prepare()
    ingest(config)
    queries = paper_queries.load()
    print(f"{len(queries)} queries; {paper_queries.counts(queries)}")
    settings = bootstrap.settings(config)
    project = settings.get_project("papers")
    rows = [
        ("page-level BM25 baseline", run(queries, baseline_search(PageBM25(page_texts(config)))))
    ]
    engine = bootstrap.index(settings)
    # every variant ranks the same engine answers: each search is run once
    index, embedder = remembered(engine, bootstrap.embedder(settings, project))
    try:
        for name, params, per_doc, policy in variants(args.sweep):
            service = QueryService(
                project="papers",
                collection=project.collection,
                embedder=embedder,
                index=index,
                **params,
            )
            if policy is not None:
                service.fuse = policy
            rows.append((name, run(queries, service_search(service, per_doc))))
        if args.train:
            service = QueryService(
                project="papers", collection=project.collection, embedder=embedder, index=index
            )
            coefficients = train(service, queries)
            print("learned coefficients (" + ", ".join(fusions.FEATURES) + "):", coefficients)
    finally:
        engine.close()
    print_halves(rows)
    print(
        "\n(hit@1/hit@5 per kind; false abst: answerable queries marked not confident; "
        "true abst: unanswerable queries marked so)"
    )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
