"""The judged query set over the shared papers, its tuning/test split, and how it is scored.

``benchmarks/data/paper_queries.json``: queries of six kinds (keyword, question, paraphrase,
quoted phrase, OCR-only text, unanswerable), each answerable one with its citekey and the
physical pages that answer it. ``benchmarks/data/paper_split.json`` splits them by paper
into a tuning half and a test half; fusion and abstention are tuned on the first only.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.metrics import hit_at, reciprocal_rank_at

DATA = Path(__file__).resolve().parent / "data"
KINDS = ["keyword", "question", "paraphrase", "phrase", "ocr", "unanswerable"]
HALVES = ("tune", "test")


def load() -> list[dict]:
    return json.loads((DATA / "paper_queries.json").read_text(encoding="utf-8"))


def half(query: dict) -> str:
    """'tune' or 'test': by paper, and for unanswerable queries by a hash of their text."""
    split = json.loads((DATA / "paper_split.json").read_text(encoding="utf-8"))
    if query["citekey"] is None:
        return "test" if hashlib.sha1(query["query"].encode()).digest()[0] % 2 else "tune"
    if query["citekey"] in split["tune"]:
        return "tune"
    if query["citekey"] in split["test"]:
        return "test"
    raise ValueError(f"{query['citekey']} is in neither half of paper_split.json")


def is_hit(citekey: str | None, start: int | None, end: int | None, query: dict) -> bool:
    """The expected paper, with a page span that touches an expected page."""
    if citekey != query["citekey"] or start is None:
        return False
    return any(start <= p <= (end or start) for p in query["pages"])


@dataclass
class Outcome:
    """One query's result under one retrieval variant."""

    query: dict
    hits: list[bool]  # per returned passage, in rank order
    abstained: bool = False
    confidence: float = 0.0


@dataclass(frozen=True)
class Scores:
    hit1: float
    hit5: float
    mrr10: float
    n: int


def scores(outcomes: Iterable[Outcome]) -> Scores | None:
    hits = [o.hits for o in outcomes]
    if not hits:
        return None
    return Scores(
        statistics.mean(hit_at(h, 1) for h in hits),
        statistics.mean(hit_at(h, 5) for h in hits),
        statistics.mean(reciprocal_rank_at(h, 10) for h in hits),
        len(hits),
    )


def by_kind(outcomes: Iterable[Outcome]) -> dict[str, list[Outcome]]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[outcome.query["kind"]].append(outcome)
    return groups


def header(width: int = 34) -> str:
    cells = "  ".join(f"{k[:10]:>10}" for k in [*KINDS[:-1], "all"])
    return f"{'hit@1/hit@5':{width}} {cells}  {'false abst':>10}  {'true abst':>9}"


def row(name: str, outcomes: list[Outcome], width: int = 34) -> str:
    """hit@1/hit@5 per kind and for all answerable queries, then abstention: answerable
    queries wrongly flagged, unanswerable ones rightly flagged."""
    groups = by_kind(outcomes)
    answerable = [o for o in outcomes if o.query["citekey"] is not None]
    cells = []
    for kind in [*KINDS[:-1], "all"]:
        s = scores(answerable if kind == "all" else groups.get(kind, []))
        cells.append(f"{s.hit1:.2f}/{s.hit5:.2f}" if s else "-")
    wrong = sum(o.abstained for o in answerable)
    unanswerable = groups.get("unanswerable", [])
    right = sum(o.abstained for o in unanswerable)
    flags = f"{wrong:>4}/{len(answerable):<5}  {right:>4}/{len(unanswerable):<4}"
    return f"{name:{width}} " + "  ".join(f"{c:>10}" for c in cells) + f"  {flags}"


def counts(queries: list[dict]) -> str:
    parts = []
    for name in HALVES:
        chosen = [q for q in queries if half(q) == name]
        per_kind = ", ".join(f"{k} {sum(q['kind'] == k for q in chosen)}" for k in KINDS)
        parts.append(f"{name}: {len(chosen)} ({per_kind})")
    return "; ".join(parts)


def run(queries: list[dict], search: Callable[[dict], tuple[list[tuple], bool, float]]) -> list:
    """``search(query)`` returns ([(citekey, page_start, page_end), ...], abstained,
    confidence); every query gets an Outcome."""
    outcomes = []
    for query in queries:
        results, abstained, confidence = search(query)
        hits = [is_hit(key, start, end, query) for key, start, end in results]
        outcomes.append(Outcome(query, hits, abstained, confidence))
    return outcomes
