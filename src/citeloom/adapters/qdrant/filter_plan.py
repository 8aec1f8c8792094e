"""Every filter a Qdrant engine applies, as plain conditions made here once, and rendered once
(``Renderer``) into whichever client's classes an engine hands over.

Before this module each adapter translated filters itself, and the translations could drift
(a condition added to one only, the stale-chunk filter built by hand in each). Now a search
filter, a document and the stale copies of one are planned here, and an engine only names its
client's classes; the contract suite (``tests/integration/test_index_congruence.py``) checks
that the engines answer alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from citeloom.domain.records import INDEXED_INTEGERS, INDEXED_KEYWORDS, INDEXED_TEXT
from citeloom.ports.index import SearchFilter

Kind = Literal["equals", "any", "words", "phrase", "range", "ids"]


@dataclass(frozen=True)
class Condition:
    kind: Kind
    key: str = ""
    values: tuple[str, ...] = ()  # equals: one value; any, ids: several; words, phrase: one text
    low: float | None = None  # range bounds, inclusive
    high: float | None = None


@dataclass(frozen=True)
class Plan:
    """Every ``must`` condition holds, at least one ``should`` (when there are any), and no
    ``must_not``: the three clauses of a Qdrant filter."""

    must: tuple[Condition, ...] = ()
    should: tuple[Condition, ...] = ()
    must_not: tuple[Condition, ...] = ()


def filter_plan(filters: SearchFilter) -> Plan:
    """Every condition must hold. The project comes first: no result ever crosses projects."""
    plan = [Condition("equals", "project", (filters.project,))]
    if filters.citekeys:
        plan.append(Condition("any", "zotero.citekey", filters.citekeys))
    if filters.tags:
        plan.append(Condition("any", "zotero.tags", filters.tags))
    if filters.collections:
        plan.append(Condition("any", "zotero.collections", filters.collections))
    if filters.doc_ids:
        plan.append(Condition("any", "doc_id", filters.doc_ids))
    if filters.point_ids:
        plan.append(Condition("ids", values=filters.point_ids))
    plan += [Condition("words", "doc.section_path", (w,)) for w in filters.sections]
    plan += [Condition("phrase", "fulltext", (p,)) for p in filters.phrases]
    plan += [Condition("words", "fulltext", (t,)) for t in filters.terms]
    if filters.chunk_range is not None:
        first, last = filters.chunk_range
        plan.append(Condition("range", "chunk_index", low=float(first), high=float(last)))
    if filters.pages is not None:  # a chunk overlaps the pages: starts before, ends after
        first, last = filters.pages
        plan.append(Condition("range", "doc.page_start", high=float(last)))
        plan.append(Condition("range", "doc.page_end", low=float(first)))
    if filters.year_from is not None or filters.year_to is not None:
        plan.append(
            Condition(
                "range",
                "doc.year",
                low=None if filters.year_from is None else float(filters.year_from),
                high=None if filters.year_to is None else float(filters.year_to),
            )
        )
    return Plan(must=tuple(plan))


def document_plan(doc_id: str) -> Plan:
    """Every chunk of one document, whichever project it was written for."""
    return Plan(must=(Condition("equals", "doc_id", (doc_id,)),))


def others_plan(project: str) -> Plan:
    """Every chunk that is not ``project``'s (a chunk that names no project included)."""
    return Plan(must_not=(Condition("equals", "project", (project,)),))


def stale_plan(doc_id: str, source_path: str, keep: Sequence[str]) -> Plan:
    """What a new copy of a document replaces: every chunk of the same content or the same
    file, but the ``keep`` chunks just written (an unchanged chunk keeps its id)."""
    return Plan(
        should=(
            Condition("equals", "doc_id", (doc_id,)),
            Condition("equals", "source.path", (source_path,)),
        ),
        must_not=(Condition("ids", values=tuple(keep)),) if keep else (),
    )


@dataclass(frozen=True)
class Renderer:
    """A plan in one client's classes. Both clients name the clauses of a filter and of a
    field condition alike (``Filter(must=, should=, must_not=)``, ``FieldCondition(key=,
    match= | range=)``); only the match, range and id classes need naming."""

    filter: Callable[..., Any]
    field: Callable[..., Any]
    matches: Mapping[str, Callable[[Any], Any]]  # equals, any, words, phrase -> match class
    range: Callable[[float | None, float | None], Any]
    has_id: Callable[[tuple[str, ...]], Any]

    def __call__(self, plan: Plan | None) -> Any:
        if plan is None:
            return None  # no filter: every point
        clauses = {"must": plan.must, "should": plan.should, "must_not": plan.must_not}
        return self.filter(
            **{name: [self.condition(c) for c in cs] or None for name, cs in clauses.items()}
        )

    def condition(self, c: Condition) -> Any:
        if c.kind == "ids":
            return self.has_id(c.values)
        if c.kind == "range":
            return self.field(key=c.key, range=self.range(c.low, c.high))
        value = list(c.values) if c.kind == "any" else c.values[0]
        return self.field(key=c.key, match=self.matches[c.kind](value))


IndexKind = Literal["keyword", "integer", "text", "phrase text"]
# How both engines tokenise an indexed text: by words, case and accents folded.
TEXT_INDEX: dict[str, Any] = {"lowercase": True, "ascii_folding": True}


def payload_indexes() -> list[tuple[str, IndexKind]]:
    """The payload indexes every collection carries, on either transport: keywords for the
    filters, integers for ranges, word indexes for section and text matches (the chunk text
    also by phrase)."""
    return [
        *((key, "keyword") for key in INDEXED_KEYWORDS),
        *((key, "integer") for key in INDEXED_INTEGERS),
        *((key, "phrase text" if key == "fulltext" else "text") for key in INDEXED_TEXT),
    ]
