"""What a query's options mean, for the CLI and the HTTP API alike."""

from __future__ import annotations

from collections.abc import Sequence

from citeloom.config import Settings
from citeloom.domain.errors import ConfigError
from citeloom.services.query import QueryOptions

DEFAULT_TOP_K = 6


def query_options(
    settings: Settings,
    *,
    top_k: int = DEFAULT_TOP_K,
    per_doc: int | None = None,
    citekeys: Sequence[str] = (),
    tags: Sequence[str] = (),
    year_from: int | None = None,
    year_to: int | None = None,
    section: str | None = None,
    budget: int | None = None,
) -> QueryOptions:
    """``per_doc`` unset: ``[query] per_doc`` (0: no limit). With a budget and the default
    ``top_k``, the budget decides how many passages fit (up to 50)."""
    if year_from is not None and year_to is not None and year_from > year_to:
        raise ConfigError(f"--year-from {year_from} is after --year-to {year_to}.")
    per = settings.query.per_doc if per_doc is None else per_doc
    return QueryOptions(
        top_k=top_k if budget is None or top_k != DEFAULT_TOP_K else 50,
        citekeys=tuple(citekeys),
        tags=tuple(tags),
        year_from=year_from,
        year_to=year_to,
        sections=(section,) if section else (),
        per_doc=per or None,
        budget=budget,
    )
