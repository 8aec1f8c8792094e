"""Ranking: between near-tied results of two versions of one work, the version of record
first, without dropping the other."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from citeloom.domain.relations.graph import RelationGraph

# Passages of two versions of one work this close in score (relative) are near-tied.
RECORD_TIE = 0.03


def prefer_records(
    ranked: Sequence[Any],
    graph: RelationGraph,
    citekey: Callable[[Any], str | None],
    score: Callable[[Any], float],
    tie: float = RECORD_TIE,
) -> list[Any]:
    """Between near-tied results of two versions of one work, the version of record first.

    A result of another version is never dropped: it moves down by as many places as the
    near-tied results of the record that overtake it, and only those. Scores within ``tie``
    (relative to the better one) are near-tied."""
    out = list(ranked)
    i = 0
    while i < len(out):
        key = citekey(out[i])
        record = graph.record(key)
        if record is None or record == key:
            i += 1
            continue
        floor = score(out[i]) - tie * abs(score(out[i]))
        for j in range(i + 1, len(out)):
            if score(out[j]) < floor:
                break
            if citekey(out[j]) == record:
                out.insert(i, out.pop(j))
                break
        i += 1
    return out
