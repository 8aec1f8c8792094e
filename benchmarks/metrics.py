"""Ranking metrics shared by the retrieval benchmarks (pure functions, unit-tested)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at(ranked: Sequence[str], gains: Mapping[str, float], k: int = 10) -> float:
    """Normalised discounted cumulative gain with graded gains (log2 discount)."""
    dcg = sum(gains.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in gains.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def average_precision_at(ranked: Sequence[str], relevant: set[str], k: int = 100) -> float:
    hits, total = 0, 0.0
    for i, d in enumerate(ranked[:k], start=1):
        if d in relevant:
            hits += 1
            total += hits / i
    return total / len(relevant) if relevant else 0.0


def recall_at(ranked: Sequence[str], relevant: set[str], k: int = 100) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def reciprocal_rank_at(hits: Sequence[bool], k: int = 10) -> float:
    return next((1.0 / i for i, hit in enumerate(hits[:k], start=1) if hit), 0.0)


def hit_at(hits: Sequence[bool], k: int) -> float:
    return 1.0 if any(hits[:k]) else 0.0
