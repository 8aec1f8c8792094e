"""Fusion on several judged collections, as BEIR does: Cranfield, NPL and CISI.

Each collection becomes its own throwaway project (its abstracts written through the project's
chunker, embedder and index, see benchmarks/library.py; vectors cached), and its judged queries
run through citeloom's query service under each retrieval variant. Prints nDCG@10 (graded
gains where the collection has grades: Cranfield's 5 - grade) and Recall@100 per collection,
and their mean, so a fusion that only helps one collection shows.

Abstention is checked the same way: a collection's own judged queries are answerable there
(none should be marked "no confident answer"), the other collections' queries are about other
fields (aerodynamics, electronics, library science) and should be. ``--remedies`` adds issue
44's re-weighings and BM25 with RM3 feedback (docs/adr/0036). Run:

    .venv/bin/python benchmarks/eval_collections.py [--sweep] [--remedies]
        [--only cranfield,npl,cisi]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work" / "collections"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import corpora, expansion, fusions  # noqa: E402
from benchmarks.library import CachedEmbedder, add_records, write_config  # noqa: E402
from benchmarks.metrics import ndcg_at, recall_at  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402

_DENSE_W, _BM25_W = DEFAULT_WEIGHTS[DEFAULT_FUSION]
VARIANTS = [
    ("bm25 only", {"signals": "bm25"}),
    ("dense only", {"signals": "dense"}),
    (f"hybrid {DEFAULT_FUSION} {_DENSE_W:g}:{_BM25_W:g} (default)", {}),
]
SWEEP = [
    ("hybrid rrf 1:1 (k=60)", {"fusion": "rrf", "weights": (1.0, 1.0)}),
    ("hybrid dbsf 1:1", {"fusion": "dbsf", "weights": (1.0, 1.0)}),
    *[
        (f"hybrid linear {w:g}:{1 - w:g}", {"fusion": "linear", "weights": (w, 1 - w)})
        for w in (0.3, 0.4, 0.5, 0.7, 0.8)
        if w != _DENSE_W
    ],
]


Row = tuple[str, dict, "fusions.Fusion | None", "Callable[[Any], Any] | None"]


def remedies() -> list[Row]:
    """Issue 44's remedies (docs/adr/0036): (row, QueryService arguments, fusion policy, index
    wrapper)."""
    rows: list[Row] = [(name, {}, policy, None) for name, policy in fusions.remedies()]
    rows += [
        ("bm25 rm3", {"signals": "bm25"}, None, lambda index: expansion.RM3(index, index)),
        ("hybrid + bm25 rm3", {}, None, lambda index: expansion.RM3(index, index)),
    ]
    return rows


def build(judged: corpora.Judged) -> tuple[Path, CachedEmbedder]:
    """The collection's project, rebuilt when it does not hold every record yet."""
    config = write_config(WORK / judged.name, judged.name, f"bench-{judged.name}", None)
    settings = bootstrap.settings(config)
    project = settings.get_project(judged.name)
    embedder = CachedEmbedder(
        bootstrap.embedder(settings, project), settings.paths.cache_dir / "vectors"
    )
    index = bootstrap.index(settings)
    try:
        info = index.collection_info(project.collection)
        if info is None or len(index.documents(project.collection, judged.name)) < len(
            judged.records
        ):
            start = time.perf_counter()
            chunker = bootstrap.chunker(settings, embedder.inner)  # type: ignore[arg-type]
            add_records(
                judged.records,
                project=judged.name,
                collection=project.collection,
                chunker=chunker,
                embedder=embedder,
                index=index,
            )
            print(f"{judged.name}: built in {time.perf_counter() - start:.0f} s")
    finally:
        index.close()
    return config, embedder


def evaluate(service: QueryService, judged: corpora.Judged) -> tuple[float, float]:
    ndcg, recall = [], []
    options = QueryOptions(top_k=100, per_doc=1)
    for qid, text in judged.queries.items():
        gains = judged.gains.get(qid, {})
        if not gains:
            continue
        report = service.search(text, options)
        ranked = [p.source.rsplit("/", 1)[-1] for p in report.results]
        ndcg.append(ndcg_at(ranked, gains, 10))
        recall.append(recall_at(ranked, set(gains), 100))
    return statistics.mean(ndcg), statistics.mean(recall)


def abstention(service: QueryService, own: list[str], foreign: list[str]) -> tuple[float, float]:
    """Share of the collection's own queries wrongly marked not confident, and share of other
    collections' queries rightly so."""
    options = QueryOptions(top_k=10)
    wrong = statistics.mean(not service.search(q, options).answerable for q in own)
    right = statistics.mean(not service.search(q, options).answerable for q in foreign)
    return wrong, right


def judged_queries(judged: corpora.Judged) -> list[str]:
    return [t for q, t in judged.queries.items() if judged.gains.get(q)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="also other fusions and weights")
    parser.add_argument("--only", default=",".join(corpora.JUDGED), help="collections to run")
    parser.add_argument(
        "--remedies", action="store_true", help="also issue 44's re-weighings and BM25 with RM3"
    )
    args = parser.parse_args()
    names = args.only.split(",")
    table: dict[str, dict[str, tuple[float, float]]] = {}
    abstentions: dict[str, tuple[float, float]] = {}
    every = {name: judged_queries(corpora.JUDGED[name]()) for name in corpora.JUDGED}
    for name in names:
        judged = corpora.JUDGED[name]()
        config, embedder = build(judged)
        settings = bootstrap.settings(config)
        index = bootstrap.index(settings)
        print(
            f"{name}: {len(judged.records)} documents, "
            f"{sum(1 for q in judged.queries if judged.gains.get(q))} judged queries",
            flush=True,
        )
        try:
            chosen: list[Row] = [
                (v, p, None, None) for v, p in VARIANTS + (SWEEP if args.sweep else [])
            ]
            if args.remedies:
                chosen += remedies()
            for variant, params, policy, wrap in chosen:
                service = QueryService(
                    project=name,
                    collection=settings.get_project(name).collection,
                    embedder=embedder,
                    index=index if wrap is None else wrap(index),
                    candidates=200,
                    **params,
                )
                if policy is not None:
                    service.fuse = policy
                table.setdefault(variant, {})[name] = evaluate(service, judged)
                if "(default)" in variant:
                    foreign = [q for other, qs in every.items() if other != name for q in qs]
                    abstentions[name] = abstention(service, every[name], foreign)
        finally:
            index.close()
    cells = "".join(f"{n[:9] + ' nDCG':>15}{'R@100':>7}" for n in names)
    print(f"\n{'variant':34}{cells}{'mean nDCG':>11}{'R@100':>7}")
    for variant, per in table.items():
        values = "".join(f"{per[n][0]:15.4f}{per[n][1]:7.4f}" for n in names)
        mean_ndcg = statistics.mean(per[n][0] for n in names)
        mean_recall = statistics.mean(per[n][1] for n in names)
        print(f"{variant:34}{values}{mean_ndcg:11.4f}{mean_recall:7.4f}")
    print("\nabstention of the default: own queries wrongly / other collections' rightly flagged")
    for name, (wrong, right) in abstentions.items():
        print(f"  {name:10} {wrong:6.1%} wrongly  {right:6.1%} rightly")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
