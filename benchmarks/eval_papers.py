"""Does the right passage of the right paper come first? Measured on the shared papers.

Ingests ../shared/corpus/papers/ (read in place) into a throwaway project under
benchmarks/.work/papers with the library tests/data/papers.csl.json, runs the query set
benchmarks/data/paper_queries.json (kinds: keyword, question, paraphrase, quoted phrase,
OCR-only text, unanswerable) and prints, per kind and retrieval variant, hit@1, hit@5 and
MRR@10, where a hit is a result with the expected citekey whose page span touches an expected
page. A page-level BM25 baseline (whole pages, no chunks, no vectors) runs alongside. For
abstention it prints how often answerable queries were wrongly marked unanswerable, and how
often unanswerable ones were rightly so. Run:

    .venv/bin/python benchmarks/eval_papers.py [--sweep]
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "corpus" / "papers"
WORK = ROOT / "benchmarks" / ".work" / "papers"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.metrics import hit_at, reciprocal_rank_at  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.abstention import STOPWORDS  # noqa: E402
from citeloom.domain.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS  # noqa: E402
from citeloom.domain.ids import doc_id_from_sha256, sha256_of_file  # noqa: E402
from citeloom.domain.text import fold_for_match  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402

KINDS = ["keyword", "question", "paraphrase", "phrase", "ocr", "unanswerable"]


def prepare() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    config = WORK / "citeloom.toml"
    references = ROOT / "tests" / "data" / "papers.csl.json"
    config.write_text(
        f'[project."papers"]\ncollection = "bench-papers"\nreferences_json = "{references}"\n',
        encoding="utf-8",
    )
    return config


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
        scored.sort(reverse=True)
        return [(key, page) for _, key, page in scored[:k]]


def page_texts(config: Path) -> list[tuple[str, int, str]]:
    """(citekey, page, text) of every page, from the conversion cache."""
    settings = bootstrap.settings(config)
    converter = bootstrap.converter(settings)
    resolver = bootstrap.metadata(settings, settings.get_project("papers"))
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
def is_hit(citekey: str | None, start: int | None, end: int | None, query: dict) -> bool:
    if citekey != query["citekey"] or start is None:
        return False
    return any(start <= p <= (end or start) for p in query["pages"])


def table(name: str, rows: dict[str, list[list[bool]]]) -> dict[str, tuple[float, float, float]]:
    scores = {}
    for kind in KINDS:
        if kind == "unanswerable" or not rows.get(kind):
            continue
        hits = rows[kind]
        scores[kind] = (
            statistics.mean(hit_at(h, 1) for h in hits),
            statistics.mean(hit_at(h, 5) for h in hits),
            statistics.mean(reciprocal_rank_at(h, 10) for h in hits),
        )
    every = [h for kind, hs in rows.items() if kind != "unanswerable" for h in hs]
    scores["all"] = (
        statistics.mean(hit_at(h, 1) for h in every),
        statistics.mean(hit_at(h, 5) for h in every),
        statistics.mean(reciprocal_rank_at(h, 10) for h in every),
    )
    cells = "  ".join(f"{a:.2f} {b:.2f} {c:.2f}" for a, b, c in scores.values())
    print(f"{name:34} {cells}")
    return scores


def run_baseline(bm25: PageBM25, queries: list[dict]) -> None:
    rows: dict[str, list[list[bool]]] = defaultdict(list)
    for q in queries:
        if q["citekey"] is None:
            continue
        ranked = bm25.search(q["query"].replace('"', " "))
        rows[q["kind"]].append([is_hit(k, p, p, q) for k, p in ranked])
    table("page-level BM25 baseline", rows)


def run_service(
    name: str, service: QueryService, queries: list[dict], per_doc: int | None
) -> dict[str, list[tuple[bool, float]]]:
    """Prints the variant's row; returns (abstained, confidence) of every query by kind."""
    rows: dict[str, list[list[bool]]] = defaultdict(list)
    abstentions: dict[str, list[tuple[bool, float]]] = defaultdict(list)
    for q in queries:
        report = service.search(q["query"], QueryOptions(top_k=10, per_doc=per_doc))
        abstentions[q["kind"]].append((not report.answerable, report.confidence))
        if q["citekey"] is not None:
            rows[q["kind"]].append(
                [is_hit(r.citekey, r.page_start, r.page_end, q) for r in report.results]
            )
    table(name, rows)
    return abstentions


def print_abstention(abstentions: dict[str, list[tuple[bool, float]]], threshold: float) -> None:
    print(f"\nabstention of the default (min_confidence {threshold:g}):")
    print(f"  {'kind':14} {'abstained':>10} {'median confidence':>18}")
    for kind in KINDS:
        if kind in abstentions:
            flags = [a for a, _ in abstentions[kind]]
            median = statistics.median(c for _, c in abstentions[kind])
            share = f"{sum(flags)}/{len(flags)}"
            print(f"  {kind:14} {share:>10} {median:18.2f}")
    answerable = [a for k, v in abstentions.items() if k != "unanswerable" for a, _ in v]
    right = [a for a, _ in abstentions.get("unanswerable", [])]
    print(
        f"  false abstentions {sum(answerable)}/{len(answerable)} answerable queries; "
        f"true abstentions {sum(right)}/{len(right)} unanswerable queries"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="also other fusions and limits")
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    config = prepare()
    ingest(config)
    queries = json.loads((ROOT / "benchmarks" / "data" / "paper_queries.json").read_text())
    counts = Counter(q["kind"] for q in queries)
    print(f"{len(queries)} queries: " + ", ".join(f"{k} {counts[k]}" for k in KINDS))
    settings = bootstrap.settings(config)
    project = settings.get_project("papers")
    index = bootstrap.index(settings)
    embedder = bootstrap.embedder(settings, project)
    kinds = [k for k in KINDS if k != "unanswerable" and counts[k]]
    print(
        f"\n{'hit@1 hit@5 MRR@10 by kind':34} " + "  ".join(f"{k[:14]:14}" for k in [*kinds, "all"])
    )
    run_baseline(PageBM25(page_texts(config)), queries)

    def service(**params) -> QueryService:
        return QueryService(
            project="papers",
            collection=project.collection,
            embedder=embedder,
            index=index,
            **params,
        )

    per_doc = QueryOptions().per_doc
    dense_w, bm25_w = DEFAULT_WEIGHTS[DEFAULT_FUSION]
    default = f"hybrid {DEFAULT_FUSION} {dense_w:g}:{bm25_w:g} (default)"
    variants = [
        ("bm25 chunks", {"signals": "bm25"}, per_doc),
        ("dense chunks", {"signals": "dense"}, per_doc),
        (default, {}, per_doc),
    ]
    if args.sweep:
        variants += [
            ("  ... no per-doc limit", {}, None),
            ("  ... per-doc 2", {}, 2),
            ("  ... per-doc 1", {}, 1),
            ("hybrid rrf 1:1", {"fusion": "rrf", "weights": (1.0, 1.0)}, per_doc),
            ("hybrid rrf 2:1", {"fusion": "rrf", "weights": (2.0, 1.0)}, per_doc),
            ("hybrid rrf 1:2", {"fusion": "rrf", "weights": (1.0, 2.0)}, per_doc),
            ("hybrid rrf 2:1 k=10", {"fusion": "rrf", "weights": (2.0, 1.0), "rrf_k": 10}, per_doc),
            ("hybrid dbsf 1:1", {"fusion": "dbsf", "weights": (1.0, 1.0)}, per_doc),
            ("hybrid linear 0.5:0.5", {"fusion": "linear", "weights": (0.5, 0.5)}, per_doc),
            ("hybrid linear 0.7:0.3", {"fusion": "linear", "weights": (0.7, 0.3)}, per_doc),
        ]
    abstention = {}
    try:
        for name, params, limit in variants:
            result = run_service(name, service(**params), queries, limit)
            if name == default:
                abstention = result
    finally:
        index.close()
    print_abstention(abstention, service().min_confidence)


if __name__ == "__main__":
    main()
