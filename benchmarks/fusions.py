"""Fusion policies measured against citeloom's default (docs/adr/0016-fusion-by-measurement.md).

Each policy is a function ``(lists, weights) -> ranking`` like those of ``domain.fusion``: the
benchmarks put it in a ``QueryService`` (``service.fuse = policy``), so it runs through the whole
query pipeline (phrases, near-duplicates, ``per_doc``). ``lists`` are the dense list (cosines)
and the BM25 list (shares of the query's ceiling), both over the same candidates.

The policies adapt to what a query's candidates show, as issue 29 asked:

- ``rare_match``: BM25 trusted by how much of the query's ceiling its best candidate reaches,
  that is how many of the query's rare terms BM25 matched at all (a paraphrase shares only
  ordinary words with its page: its best share is 0.2-0.6, a keyword query's 0.9-1.0);
- ``peaked``: each signal trusted by how far its best candidate stands above its next nine;
- ``learned``: a logistic model over per-candidate features, fitted (``train``) on the judged
  queries of the tuning half of the shared papers (``eval_papers.py --train``).

Issue 44 measured more against vocabulary mismatch (``remedies``, docs/adr/0036): BM25's
weight by the lexical evidence its best candidate holds (``rare_match`` with a floor,
``IdfMass``: the share of the query's IDF its best candidate holds), and dense search's best
candidates kept near the top when BM25 found nothing confident (``dense_kept``).

None of them is citeloom's fusion: each was measured and rejected (the ADRs have the figures).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from citeloom.domain.abstention import covered_terms
from citeloom.domain.fusion import linear
from citeloom.domain.models import ScoredPoint
from citeloom.domain.text import fold_for_match

Lists = Sequence[Sequence[ScoredPoint]]
Fusion = Callable[[Lists, Sequence[float]], list[ScoredPoint]]


def _best(ranked: Sequence[ScoredPoint]) -> float:
    return max((p.score for p in ranked), default=0.0)


def _peak(ranked: Sequence[ScoredPoint], n: int = 10) -> float:
    """How far the best score stands above the mean of the next ``n - 1``."""
    top = sorted((p.score for p in ranked), reverse=True)[:n]
    top += [0.0] * (n - len(top))
    return top[0] - statistics.mean(top[1:])


def rare_match(low: float = 0.3, high: float = 0.8, floor: float = 0.0) -> Fusion:
    """The default blend with BM25's weight scaled from ``floor`` (its best candidate reaches
    ``low`` of the query's ceiling or less) to 1 (``high`` or more)."""

    def fuse(lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        trust = min(1.0, max(0.0, (_best(lists[1]) - low) / (high - low)))
        return linear(lists, (weights[0], weights[1] * (floor + (1 - floor) * trust)))

    return fuse


def dense_kept(confident: float = 0.5, keep: int = 1, at: int = 5) -> Fusion:
    """The default blend, but when BM25's best candidate reaches less than ``confident`` of
    the query's ceiling (no confident lexical hit), dense search's ``keep`` best candidates
    are kept among the first ``at``: moved up to position ``at`` when the blend put them
    lower (issue 44: what dense search finds when the words differ)."""

    def fuse(lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        fused = linear(lists, weights)
        if _best(lists[1]) >= confident:
            return fused
        dense = sorted(lists[0], key=lambda p: (-p.score, p.id))[:keep]
        for point in dense:
            place = next(i for i, p in enumerate(fused) if p.id == point.id)
            if place >= at:
                moved = fused.pop(place)
                fused.insert(at - 1, moved)
        return fused

    return fuse


class IdfMass:
    """The default blend with BM25's weight scaled by the share of the query's IDF mass that
    BM25's best candidate holds (its content words, inflections allowed; from ``low`` to
    ``high``, with at least ``floor`` of the weight). The query's words and their IDF come
    from the index's ``term_weights``, which ``watch`` records as the service asks for them."""

    def __init__(self, low: float = 0.4, high: float = 0.9, floor: float = 0.0) -> None:
        self.low, self.high, self.floor = low, high, floor
        self.weights: dict[str, float] = {}

    def watch(self, index: Any) -> Any:
        policy = self

        class Watched:
            def __getattr__(self, name: str) -> Any:
                return getattr(index, name)

            def term_weights(self, collection: str, text: str) -> dict[str, float]:
                policy.weights = index.term_weights(collection, text)
                return policy.weights

        return Watched()

    def mass(self, best: ScoredPoint | None) -> float:
        weights = {fold_for_match(w): v for w, v in self.weights.items() if v > 0}
        total = sum(weights.values())
        if best is None or not total:
            return 0.0
        covered = covered_terms(weights, [(best.payload or {}).get("fulltext", "")])
        return sum(weights[t] for t in covered) / total

    def __call__(self, lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        top = max(lists[1], key=lambda p: (p.score, p.id), default=None)
        trust = min(1.0, max(0.0, (self.mass(top) - self.low) / (self.high - self.low)))
        return linear(lists, (weights[0], weights[1] * (self.floor + (1 - self.floor) * trust)))


def peaked(dense_peak: float = 0.15, bm25_peak: float = 0.35, mix: float = 0.5) -> Fusion:
    """The default blend with each weight scaled by its signal's peak over a typical one
    (``mix`` of the way), then renormalised."""

    def fuse(lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        dense = weights[0] * (1 - mix + mix * _peak(lists[0]) / dense_peak)
        bm25 = weights[1] * (1 - mix + mix * _peak(lists[1]) / bm25_peak)
        total = dense + bm25 or 1.0
        return linear(lists, (dense / total, bm25 / total))

    return fuse


FEATURES = ("cosine", "share", "share x best share", "cosine x dense peak", "share x BM25 peak")


def features(lists: Lists) -> dict[str, list[float]]:
    """Per candidate: its cosine and BM25 share, and both crossed with what the query's lists
    show (BM25's best share, each signal's peak)."""
    dense = {p.id: p.score for p in lists[0]}
    share = {p.id: p.score for p in lists[1]}
    best, dense_peak, bm25_peak = _best(lists[1]), _peak(lists[0]), _peak(lists[1])
    out = {}
    for pid in dict.fromkeys([*dense, *share]):
        c, s = dense.get(pid, 0.0), share.get(pid, 0.0)
        out[pid] = [c, s, s * best, c * dense_peak, s * bm25_peak]
    return out


# Fitted by ``eval_papers.py --train`` on the 127 answerable queries of the tuning half.
LEARNED = (6.19, 2.16, 1.63, 0.97, 1.47)


def learned(coefficients: Sequence[float] = LEARNED) -> Fusion:
    """Candidates ranked by ``coefficients . features`` (a logistic model's log-odds)."""

    def fuse(lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        payloads = {p.id: p.payload for ranked in lists for p in ranked if p.payload}
        scores = {
            pid: sum(w * x for w, x in zip(coefficients, row, strict=True))
            for pid, row in features(lists).items()
        }
        order = sorted(scores, key=lambda pid: (-scores[pid], pid))
        return [ScoredPoint(pid, scores[pid], payloads.get(pid)) for pid in order]

    return fuse


def train(
    samples: Sequence[tuple[Lists, set[str]]], l2: float = 1e-3, steps: int = 400
) -> list[float]:
    """A pairwise logistic model (each right candidate against each wrong one of the same
    query, every query weighing the same) fitted by gradient descent: ``samples`` are each
    query's two lists and the ids of its right candidates."""
    diffs, weights = [], []
    for lists, right in samples:
        rows = features(lists)
        good = np.array([rows[p] for p in rows if p in right])
        bad = np.array([rows[p] for p in rows if p not in right])
        if len(good) and len(bad):
            pairs = (good[:, None, :] - bad[None, :, :]).reshape(-1, len(FEATURES))
            diffs.append(pairs)
            weights.append(np.full(len(pairs), 1.0 / len(pairs)))
    x, w = np.concatenate(diffs), np.concatenate(weights)
    w /= w.sum()
    beta = np.zeros(len(FEATURES))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        beta -= 5.0 * (-(x.T @ (w * (1.0 - p))) + l2 * beta)
    return [round(float(b), 2) for b in beta]


class Recorder:
    """The default blend, keeping each query's two lists (for ``train``)."""

    def __init__(self) -> None:
        self.lists: list[Lists] = []

    def __call__(self, lists: Lists, weights: Sequence[float]) -> list[ScoredPoint]:
        self.lists.append([list(ranked) for ranked in lists])
        return linear(lists, weights)


def remedies() -> list[tuple[str, Fusion]]:
    """Issue 44's re-weighings: BM25 trusted by the lexical evidence it found (the first row is
    ``adaptive rare-term match`` again, for the tables of ADR 0036), and dense search's best
    kept near the top when BM25 found nothing confident."""
    return [
        ("lexical weight 0.3-0.8", rare_match()),
        ("lexical weight 0.2-0.6", rare_match(0.2, 0.6)),
        ("lexical weight 0.3-0.8 floor .5", rare_match(floor=0.5)),
        ("lexical weight 0.4-0.9 floor .5", rare_match(0.4, 0.9, floor=0.5)),
        ("dense kept: 1 in 5 under .5", dense_kept(0.5, 1, 5)),
        ("dense kept: 2 in 5 under .5", dense_kept(0.5, 2, 5)),
        ("dense kept: 1 in 3 under .5", dense_kept(0.5, 1, 3)),
        ("dense kept: 1 in 5 under .7", dense_kept(0.7, 1, 5)),
        ("dense kept: 1 in 2 under .6", dense_kept(0.6, 1, 2)),
        ("dense kept: 1 in 1 under .4", dense_kept(0.4, 1, 1)),
    ]


def sweep() -> list[tuple[str, dict, Fusion | None]]:
    """The policies compared beside the default: (row name, QueryService arguments, policy
    put in as ``service.fuse`` or None)."""
    return [
        ("hybrid rrf 1:1", {"fusion": "rrf", "weights": (1.0, 1.0)}, None),
        ("hybrid dbsf 1:1", {"fusion": "dbsf", "weights": (1.0, 1.0)}, None),
        *[
            (f"hybrid linear {w:g}:{1 - w:g}", {"weights": (w, round(1 - w, 2))}, None)
            for w in (0.5, 0.7)
        ],
        ("adaptive rare-term match", {}, rare_match()),
        ("adaptive peaks", {}, peaked()),
        ("learned logistic", {}, learned()),
    ]
