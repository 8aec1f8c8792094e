"""Retrieval quality on the Cranfield collection: BM25 alone, dense alone, and fusions.

Ingests the 1400 abstracts of ../shared/corpus/cranfield/ as plain-text documents into a
throwaway project (under benchmarks/.work/, reused between runs: unchanged files are skipped)
through citeloom's own ingest, then runs the 225 queries through citeloom's query service and
prints nDCG@10 (graded gains: 5 - grade for grades 1-4, 0 for -1), MAP@100 and Recall@100 for
each retrieval variant side by side. Run:

    .venv/bin/python benchmarks/eval_cranfield.py [--sweep]
"""

from __future__ import annotations

import argparse
import logging
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CRANFIELD = ROOT.parent / "shared" / "corpus" / "cranfield"
WORK = ROOT / "benchmarks" / ".work" / "cranfield"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.metrics import average_precision_at, ndcg_at, recall_at  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402


def read_records(path: Path) -> list[dict[str, str]]:
    """Records of a SMART-format file: '.I n' starts one, '.X' starts field X."""
    records: list[dict[str, str]] = []
    field = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I"):
            records.append({"id": line[2:].strip()})
            field = None
        elif re.fullmatch(r"\.[A-Z]", line.strip()):
            field = line.strip()[1]
            records[-1][field] = ""
        elif field:
            records[-1][field] += line + "\n"
    return records


def judgements() -> dict[int, dict[str, float]]:
    """Query position (1-based, in cran.qry order) -> {doc id: gain}."""
    gains: dict[int, dict[str, float]] = {}
    for line in (CRANFIELD / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3:
            query, doc, grade = int(parts[0]), parts[1], int(parts[2])
            gains.setdefault(query, {})[doc] = 5.0 - grade if 1 <= grade <= 4 else 0.0
    return gains


def prepare() -> Path:
    """Write the abstracts as text files and a config; return the config."""
    docs = WORK / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for record in read_records(CRANFIELD / "cran.all.1400"):
        text = re.sub(r"\s+", " ", record.get("W", "")).strip()
        target = docs / f"cran-{int(record['id']):04d}.txt"
        if text and (not target.exists() or target.read_text() != text):
            target.write_text(text, encoding="utf-8")
    (WORK / "references.json").write_text("[]")
    config = WORK / "citeloom.toml"
    config.write_text(
        '[project."cranfield"]\ncollection = "bench-cranfield"\n'
        'references_json = "references.json"\n',
        encoding="utf-8",
    )
    return config


def ingest(config: Path) -> None:
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.ingest_service(settings, "cranfield", index)
        start = time.perf_counter()
        report = service.run([WORK / "docs"])
        totals = report.totals
        print(
            f"ingest: {totals['ingested']} ingested, {totals['skipped']} skipped, "
            f"{totals['failed']} failed in {time.perf_counter() - start:.0f} s"
        )
    finally:
        index.close()


def evaluate(service: QueryService, queries: list[str], gains: dict[int, dict[str, float]]):
    ndcg, ap, recall = [], [], []
    options = QueryOptions(top_k=100, per_doc=1)
    for position, query in enumerate(queries, start=1):
        judged = gains.get(position, {})
        relevant = {d for d, g in judged.items() if g > 0}
        if not relevant:
            continue
        report = service.search(query, options)
        ranked = [Path(p.source).stem.split("-")[1].lstrip("0") for p in report.results]
        ndcg.append(ndcg_at(ranked, judged, 10))
        ap.append(average_precision_at(ranked, relevant, 100))
        recall.append(recall_at(ranked, relevant, 100))
    return statistics.mean(ndcg), statistics.mean(ap), statistics.mean(recall)


_DENSE_W, _BM25_W = DEFAULT_WEIGHTS[DEFAULT_FUSION]
VARIANTS = [
    ("bm25 only", {"signals": "bm25"}),
    ("dense only", {"signals": "dense"}),
    (f"hybrid {DEFAULT_FUSION} {_DENSE_W:g}:{_BM25_W:g} (default)", {}),
]
SWEEP = [
    ("hybrid rrf 1:1 (k=60)", {"fusion": "rrf", "weights": (1.0, 1.0)}),
    ("hybrid rrf 1:2 (k=60)", {"fusion": "rrf", "weights": (1.0, 2.0)}),
    ("hybrid rrf 2:1 (k=60)", {"fusion": "rrf", "weights": (2.0, 1.0)}),
    ("hybrid rrf 1:1 (k=20)", {"fusion": "rrf", "weights": (1.0, 1.0), "rrf_k": 20}),
    ("hybrid dbsf 1:1", {"fusion": "dbsf", "weights": (1.0, 1.0)}),
    ("hybrid linear 0.5:0.5", {"fusion": "linear", "weights": (0.5, 0.5)}),
    ("hybrid linear 0.3:0.7", {"fusion": "linear", "weights": (0.3, 0.7)}),
    ("hybrid linear 0.7:0.3", {"fusion": "linear", "weights": (0.7, 0.3)}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="also other fusions and weights")
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    config = prepare()
    ingest(config)
    queries = [
        re.sub(r"\s+", " ", r.get("W", "")).strip() for r in read_records(CRANFIELD / "cran.qry")
    ]
    gains = judgements()
    settings = bootstrap.settings(config)
    project = settings.get_project("cranfield")
    index = bootstrap.index(settings)
    embedder = bootstrap.embedder(settings, project)
    print(
        f"{len(queries)} queries\n\n{'variant':34} {'nDCG@10':>8} {'MAP@100':>8} "
        f"{'R@100':>7} {'s/query':>8}"
    )
    try:
        for name, params in VARIANTS + (SWEEP if args.sweep else []):
            service = QueryService(
                project="cranfield",
                collection=project.collection,
                embedder=embedder,
                index=index,
                candidates=200,
                **params,
            )
            start = time.perf_counter()
            ndcg, ap, recall = evaluate(service, queries, gains)
            per_query = (time.perf_counter() - start) / len(queries)
            print(f"{name:34} {ndcg:8.4f} {ap:8.4f} {recall:7.4f} {per_query:8.3f}")
    finally:
        index.close()


if __name__ == "__main__":
    main()
