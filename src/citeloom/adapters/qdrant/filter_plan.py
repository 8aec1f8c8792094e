"""A ``SearchFilter`` as a list of plain conditions, the same for every Qdrant transport.

Before this module each adapter translated the filter itself, and the two translations could
drift (a condition added to one only). Now the plan is made here and each adapter maps the five
kinds of condition onto its own client's classes; the contract suite
(``tests/integration/test_index_congruence.py``) checks that they answer alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


def filter_plan(filters: SearchFilter) -> list[Condition]:
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
    return plan


IndexKind = Literal["keyword", "integer", "text", "phrase text"]


def payload_indexes() -> list[tuple[str, IndexKind]]:
    """The payload indexes every collection carries, on either transport: keywords for the
    filters, integers for ranges, word indexes for section and text matches (the chunk text
    also by phrase)."""
    return [
        *((key, "keyword") for key in INDEXED_KEYWORDS),
        *((key, "integer") for key in INDEXED_INTEGERS),
        *((key, "phrase text" if key == "fulltext" else "text") for key in INDEXED_TEXT),
    ]
