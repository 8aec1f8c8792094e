"""Result diversity: one result per passage, and not the whole list from one paper.

Near-duplicates (the same passage ingested twice, a page repeated in a template, a chunk and
its overlapping neighbour when both are mostly the same words) collapse into the best-ranked
one; then at most ``per_doc`` results come from any one document.
"""

from __future__ import annotations

import re
from collections import Counter
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
    work: Callable[[T], tuple[str, str] | None] | None = None,
) -> list[T]:
    """Keep rank order; drop near-duplicates of a kept result and results past ``per_doc``.
    Stops once ``limit`` results are kept. Shared shingles are counted through an index of
    the kept ones, so a long result list costs no pairwise comparisons.

    ``work``: the work a result is a version of and which version it is (``domain.relations``:
    a work id and a citekey). A result repeating one of another version of its work is kept:
    the two versions may differ just where it matters, and a comparison needs both."""
    kept: list[T] = []
    sizes: list[int] = []  # shingles of each kept result
    holders: dict[tuple[str, ...], list[int]] = {}  # shingle -> kept results holding it
    per: dict[str, int] = {}
    works: list[tuple[str, str] | None] = []  # the work and version of each kept result
    for item in ranked:
        key = doc(item)
        if per_doc is not None and per.get(key, 0) >= per_doc:
            continue
        own = shingles(text(item))
        # ``overlap`` with every kept result at once: shared shingles over the smaller set
        shared = Counter(i for s in own for i in holders.get(s, ()))
        mine = work(item) if work is not None else None
        if any(
            n / min(len(own), sizes[i]) >= duplicate_at and not _other_version(mine, works[i])
            for i, n in shared.items()
        ):
            continue
        for s in own:
            holders.setdefault(s, []).append(len(kept))
        kept.append(item)
        sizes.append(len(own))
        works.append(mine)
        per[key] = per.get(key, 0) + 1
        if limit is not None and len(kept) >= limit:
            break
    return kept


def _other_version(a: tuple[str, str] | None, b: tuple[str, str] | None) -> bool:
    """Two (work, version) pairs of one work and different versions."""
    return a is not None and b is not None and a[0] == b[0] and a[1] != b[1]
