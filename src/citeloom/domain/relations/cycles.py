"""Relations that cannot go round in a circle, and the circles a library's relations make.

Some relations order the works they join, and an order has no cycle: a work is outdated by
the one that supersedes it and by its version of record (``supersedes``, ``version_of``), a
paper comes before its erratum (``erratum_of``), before a reply to it (``reply_to``) and
before the notice that retracts it (``retracted``). A cycle of any length in one of these
orders (a supersedes b supersedes a; a -> b -> c -> a) cannot be true: applied, it would show
each paper "superseded by" the other. No relation on such a cycle can be trusted over the
others (the one inferred may be the wrong one as well as the one declared), so every one of
them is set aside, not applied, and named until the user breaks the cycle.

``conflicts_with`` and ``distinct`` join two entries without an order; they are never a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citeloom.domain.relations.model import Relation

# order -> {relation kind: whether its edge runs from ``source`` to ``target`` (True) or back}
# An edge x -> y reads "x comes before y": y supersedes, is the record of, corrects, answers
# or retracts x.
ORDERS: dict[str, dict[str, bool]] = {
    "supersession": {"version_of": True, "supersedes": False},
    "errata": {"erratum_of": False},
    "replies": {"reply_to": False},
    "retractions": {"retracted": True},
}


@dataclass(frozen=True)
class Cycle:
    """Relations of one order that go round: each entry of it comes, through the others,
    before itself."""

    order: str  # a key of ORDERS
    relations: tuple[Relation, ...]

    @property
    def citekeys(self) -> tuple[str, ...]:
        return tuple(sorted({k for r in self.relations for k in r.pair}))

    def describe(self) -> str:
        """``a cycle of supersession: @a supersedes @b (file), @b supersedes @a (file)``."""
        shown = ", ".join(f"{r.describe()} ({r.origin})" for r in self.relations)
        return f"a cycle of {self.order}: {shown}"


def find_cycles(relations: Iterable[Relation]) -> list[Cycle]:
    """Every cycle among ``relations``, one per strongly connected group of entries of an
    order, with all the relations inside the group."""
    found: list[Cycle] = []
    relations = list(relations)
    for order, kinds in ORDERS.items():
        edges: list[tuple[str, str, Relation]] = []
        for r in relations:
            if r.kind in kinds and r.target:
                forward = kinds[r.kind]
                edges.append((r.source, r.target, r) if forward else (r.target, r.source, r))
        group = _groups({(a, b) for a, b, _ in edges})
        cyclic: dict[int, list[Relation]] = {}
        for a, b, r in edges:
            if group.get(a) is not None and group.get(a) == group.get(b):
                cyclic.setdefault(group[a], []).append(r)
        for members in cyclic.values():
            ordered = sorted(members, key=lambda r: (r.source, r.kind, r.target or ""))
            found.append(Cycle(order, tuple(ordered)))
    return sorted(found, key=lambda c: (c.citekeys, c.order))


def _groups(edges: set[tuple[str, str]]) -> dict[str, int]:
    """Tarjan's strongly connected components, iteratively: the group number of each entry
    that lies on a cycle (a group of two or more, or an entry with an edge to itself)."""
    following: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        following.setdefault(a, []).append(b)
        following.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: dict[str, int] = {}
    counter = 0
    for start in following:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = following[node]
            if position < len(successors):
                work.append((node, position + 1))
                nxt = successors[position]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:  # back in the caller: it inherits this node's low link
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 or node in following[node]:
                    for member in members:
                        groups[member] = index[node]
    return groups


def on_cycles(cycles: Sequence[Cycle]) -> frozenset[Relation]:
    """The relations set aside because of ``cycles``."""
    return frozenset(r for c in cycles for r in c.relations)
