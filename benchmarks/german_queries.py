"""Do German queries find the German passage? hit@1 with BM25 for English only and for German
and English.

Builds the small German and mixed library of ``tests/german_library.py`` (three German PDFs,
two with an English abstract; a German and a mixed Markdown paper; the three English example
papers beside them) under benchmarks/.work/german, ingests it twice through citeloom's own
ingest, once for a project with ``languages = ["english"]`` and once for one with
``["german", "english"]``, and runs the judged set ``benchmarks/data/german_queries.json``:
German queries, and a few English ones aimed at the English abstracts of the German papers.
A hit is a passage of the expected paper holding one of the expected phrases (after case,
accent and punctuation folding). The queries are split into a tuning half and a test half
(odd and even ids); choices were made on the first. A query is of the kind "question" when it
ends with a question mark, "keyword" otherwise. Printed per half and kind: hit@1 and hit@5 of
the default hybrid search, of dense alone and of BM25 alone; ``--sweep`` adds the fusion
policies measured against the default (benchmarks/fusions.py, docs/adr/0016). Run:

    .venv/bin/python benchmarks/german_queries.py [--choice max-df|min-df|first|all] [--sweep]

``--choice`` swaps how a multi-language query keeps a word's stem variants (the tuning
experiment; ``max-df`` is what citeloom does, ``all`` keeps every variant at weight 1).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work" / "german"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests import german_library  # noqa: E402

from benchmarks import fusions  # noqa: E402
from benchmarks.library import WORK as SHARED_WORK  # noqa: E402
from benchmarks.library import remembered  # noqa: E402
from benchmarks.metrics import hit_at  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.adapters import bm25  # noqa: E402
from citeloom.domain.fusion import FUSIONS  # noqa: E402
from citeloom.domain.text import fold_for_match  # noqa: E402
from citeloom.services.query import QueryOptions  # noqa: E402

QUERIES = ROOT / "benchmarks" / "data" / "german_queries.json"
PROJECTS = {"english": ["english"], "german+english": ["german", "english"]}
HALVES = ("tune", "test")
KINDS = ("keyword", "question")


def load() -> list[dict]:
    return json.loads(QUERIES.read_text(encoding="utf-8"))


def write_config(references: Path) -> Path:
    lines = [f'[paths]\ncache_dir = "{SHARED_WORK / "cache"}"\nindex_dir = "var/qdrant"\n']
    for number, (name, languages) in enumerate(PROJECTS.items()):
        lines.append(
            f'[project."{name}"]\ncollection = "german-{number}"\n'
            f'references_json = "{references}"\nlanguages = {json.dumps(languages)}\n'
        )
    WORK.mkdir(parents=True, exist_ok=True)
    config = WORK / "citeloom.toml"
    config.write_text("\n".join(lines), encoding="utf-8")
    return config


def ingest(config: Path, papers: Path) -> None:
    settings = bootstrap.settings(config)
    for project in PROJECTS:
        index = bootstrap.index(settings)
        try:
            report = bootstrap.ingest_service(settings, project, index).run([papers])
            t = report.totals
            print(f"ingest {project}: {t['ingested']} ingested, {t['skipped']} unchanged")
        finally:
            index.close()


def is_hit(passage, query: dict) -> bool:
    text = f" {fold_for_match(passage.text)} "
    wanted = (f" {fold_for_match(phrase)} " for phrase in query["expect"])
    return passage.citekey == query["citekey"] and any(w in text for w in wanted)


def kind(query: dict) -> str:
    return "question" if query["query"].rstrip().endswith("?") else "keyword"


def evaluate(
    config: Path, project: str, variants: list[tuple[str, dict, fusions.Fusion | None]], queries
) -> dict[str, list[list[bool]]]:
    """Per variant, each query's hits among its five passages."""
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.query_service(settings, project, index)
        default_fuse, default_weights = service.fuse, service.weights
        # every variant ranks the same engine answers: each search runs once
        service.index, service.embedder = remembered(index, service.embedder)
        out = {}
        for name, params, policy in variants:
            service.signals = params.get("signals", "hybrid")
            service.weights = list(params.get("weights", default_weights))
            service.fuse = policy or FUSIONS.get(params.get("fusion", ""), default_fuse)
            out[name] = [
                [is_hit(p, q) for p in service.search(q["query"], QueryOptions(top_k=5)).results]
                for q in queries
            ]
        return out
    finally:
        index.close()


def cells(hits: list[list[bool]]) -> str:
    if not hits:
        return f"{'-':>10}"
    one = statistics.mean(hit_at(h, 1) for h in hits)
    five = statistics.mean(hit_at(h, 5) for h in hits)
    return f"{f'{one:.2f}/{five:.2f}':>10}"


def choose_by(rule: str):
    """The variant rules compared on the tuning half (see bm25.choose, which is max-df)."""

    def choose(variants: list[tuple[int, ...]], idf: dict[int, float]) -> bm25.Terms:
        if rule == "all":
            return {t: 1.0 for v in variants for t in v}
        held = [v for v in variants if all(t in idf for t in v)] or variants[:1]
        if rule == "first":
            return dict.fromkeys(variants[0], 1.0)
        pick = max if rule == "min-df" else min
        return dict.fromkeys(pick(held, key=lambda v: max(idf.get(t, 0.0) for t in v)), 1.0)

    return choose


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--choice", choices=["max-df", "min-df", "first", "all"])
    parser.add_argument("--sweep", action="store_true", help="also the other fusion policies")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    if args.choice and args.choice != "max-df":
        bm25.choose = choose_by(args.choice)  # type: ignore[assignment]
    papers = WORK / "papers"
    references = german_library.build(papers)
    config = write_config(references)
    ingest(config, papers)
    queries = load()
    variants: list[tuple[str, dict, fusions.Fusion | None]] = [
        ("hybrid", {}, None),
        ("dense", {"signals": "dense"}, None),
        ("bm25", {"signals": "bm25"}, None),
    ]
    rows: list[tuple[str, list[list[bool]]]] = []
    for project in reversed(PROJECTS):  # the German project first: what a German library uses
        first = not rows
        swept = variants + (fusions.sweep() if args.sweep and first else [])
        for name, hits in evaluate(config, project, swept, queries).items():
            if name == "dense" and not first:
                continue  # the vectors do not depend on the BM25 languages
            rows.append((name if name == "dense" else f"{name} ({project})", hits))
    for name in HALVES:
        chosen = [i for i, q in enumerate(queries) if q["half"] == name]
        groups = {k: [i for i in chosen if kind(queries[i]) == k] for k in KINDS}
        sizes = ", ".join(f"{k} {len(g)}" for k, g in groups.items())
        print(f"\n{name} half ({len(chosen)} queries: {sizes})")
        print(f"{'hit@1/hit@5':42} " + "  ".join(f"{k:>10}" for k in [*KINDS, "all"]))
        for label, hits in rows:
            line = [cells([hits[i] for i in g]) for g in groups.values()]
            line.append(cells([hits[i] for i in chosen]))
            print(f"{label:42} " + "  ".join(line))


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
