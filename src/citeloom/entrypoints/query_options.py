"""What a query asks for, from the flags of ``citeloom query`` or the arguments of the MCP tool
``query_hybrid``: one place for the defaults and the checks both share."""

from __future__ import annotations

from collections.abc import Sequence

from citeloom.config import Settings
from citeloom.domain.errors import ConfigError
from citeloom.services.query import QueryOptions


def query_options(
    settings: Settings,
    *,
    top_k: int,
    citekeys: Sequence[str] = (),
    tags: Sequence[str] = (),
    year_from: int | None = None,
    year_to: int | None = None,
    section: str | None = None,
    per_doc: int | None = None,
    budget: int | None = None,
) -> QueryOptions:
    """``per_doc`` None: [query] per_doc; 0: no limit."""
    if year_from is not None and year_to is not None and year_from > year_to:
        raise ConfigError(f"year_from {year_from} is after year_to {year_to}.")
    per = settings.query.per_doc if per_doc is None else per_doc
    return QueryOptions(
        top_k=top_k,
        citekeys=tuple(citekeys),
        tags=tuple(tags),
        year_from=year_from,
        year_to=year_to,
        sections=(section,) if section else (),
        per_doc=per or None,
        budget=budget,
    )
