"""Does retrieval hold as the library grows? The paper queries, in a haystack.

Builds a project holding the 14 shared papers (ingested as `citeloom ingest` does) and then,
step by step, the 18,521 abstracts of ../shared/corpus/haystack and cranfield (NPL, CACM,
CISI, Cranfield, MEDLINE; in a fixed shuffled order) as distractor documents, written through
the project's own chunker, embedder and index. At each size it runs the judged paper queries
(benchmarks/data/paper_queries.json) through the query service and prints hit@1/hit@5 per
kind and abstention, for the tuning and the test half: the hybrid, dense alone and BM25 alone,
next to a page-level BM25 baseline over the same library (paper pages plus the abstracts, one
"page" each); ``--sweep`` adds the fusion policies measured against the default
(benchmarks/fusions.py, docs/adr/0016), ``--remedies`` issue 44's re-weighings (docs/adr/0036).
Embeddings of the abstracts are cached under
benchmarks/.work/cache/vectors. Run:

    .venv/bin/python benchmarks/eval_haystack.py [--levels 0,2000,6000,all] [--sweep] [--remedies]
"""

from __future__ import annotations

import argparse
import logging
import random
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work" / "haystack"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import corpora, fusions, paper_queries  # noqa: E402
from benchmarks.eval_papers import (  # noqa: E402
    PAPERS,
    PageBM25,
    baseline_search,
    page_texts,
    service_search,
)
from benchmarks.library import CachedEmbedder, add_records, remembered, write_config  # noqa: E402
from benchmarks.paper_queries import HALVES, half, header, row, run  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402

PROJECT, COLLECTION = "haystack", "bench-haystack"


def levels(spec: str, total: int) -> list[int]:
    return sorted({total if part == "all" else min(int(part), total) for part in spec.split(",")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="0,2000,6000,all", help="distractor counts")
    parser.add_argument(
        "--sweep", action="store_true", help="also the other fusion policies at each size"
    )
    parser.add_argument(
        "--remedies", action="store_true", help="also issue 44's re-weighings at each size"
    )
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    shutil.rmtree(WORK / "var", ignore_errors=True)  # each size must hold exactly its records
    config = write_config(WORK, PROJECT, COLLECTION, ROOT / "tests" / "data" / "papers.csl.json")
    settings = bootstrap.settings(config)
    settings.get_project(PROJECT)
    queries = paper_queries.load()
    print(f"{len(queries)} queries; {paper_queries.counts(queries)}")
    records = corpora.haystack()
    random.Random(0).shuffle(records)
    pages = page_texts(config, PROJECT)

    index = bootstrap.index(settings)
    try:
        ingest = bootstrap.ingest_service(settings, PROJECT, index)
        embedder = CachedEmbedder(ingest.embedder, settings.paths.cache_dir / "vectors")
        ingest.embedder = embedder
        ingest.run([PAPERS])
        chunker = ingest.chunker
        stored = 0
        results: dict[int, list] = {}
        for size in levels(args.levels, len(records)):
            start = time.perf_counter()
            add_records(
                records[stored:size],
                project=PROJECT,
                collection=COLLECTION,
                chunker=chunker,
                embedder=embedder,
                index=index,
            )
            stored = size
            info = index.collection_info(COLLECTION)
            print(
                f"{size} distractors, {info.points if info else 0} chunks "
                f"(built in {time.perf_counter() - start:.0f} s)",
                flush=True,
            )
            distractor_pages = [(None, 1, f"{r.title} {r.text}") for r in records[:size]]
            baseline = baseline_search(PageBM25(pages + distractor_pages))
            rows = [(f"{size:>6} page-level BM25", run(queries, baseline))]
            variants: list[tuple[str, dict, fusions.Fusion | None]] = [
                ("hybrid (default)", {}, None),
                ("dense", {"signals": "dense"}, None),
                ("bm25 chunks", {"signals": "bm25"}, None),
            ]
            if args.sweep:
                variants += fusions.sweep()
            if args.remedies:
                variants += [(name, {}, policy) for name, policy in fusions.remedies()]
            # every variant ranks the same engine answers at this size: each search runs once
            reader, queries_embedder = remembered(index, embedder)
            for name, params, policy in variants:
                service = QueryService(
                    project=PROJECT,
                    collection=COLLECTION,
                    embedder=queries_embedder,
                    index=reader,
                    candidates=settings.query.candidates,
                    min_confidence=settings.query.min_confidence,
                    **params,
                )
                if policy is not None:
                    service.fuse = policy
                per_doc = QueryOptions().per_doc
                rows.append((f"{size:>6} {name}", run(queries, service_search(service, per_doc))))
            results[size] = rows
    finally:
        index.close()
    for name in HALVES:
        print(f"\n{name} half\n{header()}")
        for rows in results.values():
            for variant, outcomes in rows:
                print(row(variant, [o for o in outcomes if half(o.query) == name]))
    print(
        "\n(rows start with the number of distractor abstracts in the library; hit@1/hit@5 per "
        "kind; false abst: answerable queries marked not confident; true abst: unanswerable "
        "queries marked so)"
    )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
