"""A query's options from what a door received: the CLI, HTTP and MCP alike."""

from __future__ import annotations

from collections.abc import Sequence

from citeloom.config import Settings
from citeloom.services.query import QueryOptions


def query_options(
    settings: Settings,
    *,
    top_k: int | None = None,
    per_doc: int | None = None,
    citekeys: Sequence[str] = (),
    tags: Sequence[str] = (),
    collections: Sequence[str] = (),
    year_from: int | None = None,
    year_to: int | None = None,
    section: str | None = None,
    budget: int | None = None,
) -> QueryOptions:
    """``per_doc`` unset: ``[query] per_doc`` (0: no limit). What ``top_k`` unset means is the
    query service's rule (``QueryOptions.limit``)."""
    per = settings.query.per_doc if per_doc is None else per_doc
    return QueryOptions(
        top_k=top_k,
        citekeys=tuple(citekeys),
        tags=tuple(tags),
        collections=tuple(collections),
        year_from=year_from,
        year_to=year_to,
        sections=(section,) if section else (),
        per_doc=per or None,
        budget=budget,
    )
