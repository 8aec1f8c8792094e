"""Fusion of the retrieval signals: pure functions, the same for every index adapter.

Each signal (dense vectors, BM25) ranks candidates; fusion turns them into one ranking. The
query service first makes both lists cover the same candidates (whatever either signal found,
scored by both: see ``QueryService``) and puts both on scales that do not depend on which
chunks happened to make a list: the cosine as it is, and BM25 as a share of the query's own
ceiling (``bm25_share``). A chunk that BM25 ranks first for four rare words is then not
sunk because it was not among the dense signal's nearest, and a list of noise is not
stretched to look like a list of hits, however large the library (docs/adr/0004).

Doing this here rather than inside Qdrant keeps the embedded engine and a server congruent
and lets one benchmark compare the policies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from citeloom.domain.models import ScoredPoint

RRF_K = 60


def _first_payloads(lists: Sequence[Sequence[ScoredPoint]]) -> dict[str, ScoredPoint]:
    seen: dict[str, ScoredPoint] = {}
    for ranked in lists:
        for point in ranked:
            if point.id not in seen or (seen[point.id].payload is None and point.payload):
                seen[point.id] = point
    return seen


def _ranked(scores: dict[str, float], lists: Sequence[Sequence[ScoredPoint]]) -> list[ScoredPoint]:
    points = _first_payloads(lists)
    order = sorted(scores, key=lambda pid: (-scores[pid], pid))
    return [ScoredPoint(id=pid, score=scores[pid], payload=points[pid].payload) for pid in order]


def _weights(weights: Sequence[float] | None, n: int) -> list[float]:
    if weights is None:
        return [1.0] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} ranked lists")
    return list(weights)


def rrf(
    lists: Sequence[Sequence[ScoredPoint]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[ScoredPoint]:
    """Weighted reciprocal rank fusion: ``sum_i w_i / (k + rank_i)``, ranks from 1.

    Only ranks matter, so signals with incomparable score scales (cosine vs BM25) combine
    without calibration.
    """
    w = _weights(weights, len(lists))
    scores: dict[str, float] = {}
    for weight, ranked in zip(w, lists, strict=True):
        for rank, point in enumerate(ranked, start=1):
            scores[point.id] = scores.get(point.id, 0.0) + weight / (k + rank)
    return _ranked(scores, lists)


def dbsf(
    lists: Sequence[Sequence[ScoredPoint]],
    weights: Sequence[float] | None = None,
) -> list[ScoredPoint]:
    """Distribution-based score fusion (as in Qdrant): each list's scores are scaled to [0, 1]
    between mean - 3 sigma and mean + 3 sigma, then summed."""
    w = _weights(weights, len(lists))
    scores: dict[str, float] = {}
    for weight, ranked in zip(w, lists, strict=True):
        if not ranked:
            continue
        values = [p.score for p in ranked]
        mean = sum(values) / len(values)
        sigma = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
        low, high = mean - 3 * sigma, mean + 3 * sigma
        for point in ranked:
            norm = 0.5 if high == low else (point.score - low) / (high - low)
            scores[point.id] = scores.get(point.id, 0.0) + weight * min(1.0, max(0.0, norm))
    return _ranked(scores, lists)


def linear(
    lists: Sequence[Sequence[ScoredPoint]],
    weights: Sequence[float] | None = None,
) -> list[ScoredPoint]:
    """``sum_i w_i * score_i`` on scores that are already comparable across queries (cosine,
    BM25 share of the ceiling); a candidate missing from a list scores 0 there."""
    w = _weights(weights, len(lists))
    scores: dict[str, float] = {}
    for weight, ranked in zip(w, lists, strict=True):
        for point in ranked:
            scores[point.id] = scores.get(point.id, 0.0) + weight * point.score
    return _ranked(scores, lists)


def bm25_share(ranked: Sequence[ScoredPoint], ceiling: float) -> list[ScoredPoint]:
    """BM25 scores as a share of the query's ceiling (the score of a chunk of average length
    holding each query term once, see ``Index.term_weights``), at most 1: a chunk holding one
    of four rare query words gets about a quarter, whatever else the library holds."""
    if ceiling <= 0:
        return [ScoredPoint(p.id, 0.0, p.payload) for p in ranked]
    return [ScoredPoint(p.id, min(1.0, p.score / ceiling), p.payload) for p in ranked]


FUSIONS = {"rrf": rrf, "dbsf": dbsf, "linear": linear}

# The default policy and each policy's default (dense, BM25) weights, as measured on the
# shared papers and Cranfield (docs/adr/0004-hybrid-fusion.md): rank fusion gives a weak BM25
# list as much say as a strong one, a score blend does not.
DEFAULT_FUSION = "linear"
DEFAULT_WEIGHTS: dict[str, tuple[float, float]] = {
    "rrf": (1.0, 1.0),
    "dbsf": (1.0, 1.0),
    "linear": (0.6, 0.4),
}
