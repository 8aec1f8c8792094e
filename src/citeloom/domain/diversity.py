"""Result diversity: one result per passage, and not the whole list from one paper.

Near-duplicates (the same passage ingested twice, a page repeated in a template, a chunk and
its overlapping neighbour when both are mostly the same words) collapse into the best-ranked
one; then at most ``per_doc`` results come from any one document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from citeloom.domain.text import fold_for_match

T = TypeVar("T")
SHINGLE = 5


def shingles(text: str, size: int = SHINGLE) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", fold_for_match(text))
    if len(words) < size:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def overlap(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    """Containment of the smaller in the larger: 1.0 when one passage repeats the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def diversify(
    ranked: Iterable[T],
    text: Callable[[T], str],
    doc: Callable[[T], str],
    *,
    per_doc: int | None = None,
    duplicate_at: float = 0.6,
    limit: int | None = None,
) -> list[T]:
    """Keep rank order; drop near-duplicates of a kept result and results past ``per_doc``.
    Stops once ``limit`` results are kept (comparisons grow with the square of the kept)."""
    kept: list[T] = []
    kept_shingles: list[set[tuple[str, ...]]] = []
    per: dict[str, int] = {}
    for item in ranked:
        key = doc(item)
        if per_doc is not None and per.get(key, 0) >= per_doc:
            continue
        own = shingles(text(item))
        if any(overlap(own, other) >= duplicate_at for other in kept_shingles):
            continue
        kept.append(item)
        kept_shingles.append(own)
        per[key] = per.get(key, 0) + 1
        if limit is not None and len(kept) >= limit:
            break
    return kept
