"""query: the best passages of a project for what a person looks for, each with its citation
label, section and the way back to the file; and the filters a query or an answer takes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K, QUERY_BOUNDS
from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.wire import PassageOut

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.query import QueryOptions, QueryReport
    from citeloom.services.usecases.dependencies import Dependencies

EXAMPLE_QUERY = "how fast do restored marshes accrete sediment"


def _bounded(field: str) -> Any:
    """The bounds a query is held to wherever it comes from (the CLI's --top-k reads them)."""
    low, high = QUERY_BOUNDS[field]
    return Field(ge=low, le=high)


TopK = Annotated[int | None, _bounded("top_k")]
PerDoc = Annotated[int | None, _bounded("per_doc")]
Budget = Annotated[int | None, _bounded("budget")]


def words(what: str, fix: str) -> AfterValidator:
    """A text that holds a word: there is nothing to rank or answer by otherwise."""

    def check(text: str) -> str:
        if not re.search(r"\w", text):
            raise ValueError(f"empty {what} {text!r}: {fix}")
        return text

    return AfterValidator(check)


# an empty text is refused by ``words`` too, with the fix (not pydantic's "at least 1 character")
QueryText = Annotated[str, words("query", f'say what you are looking for, e.g. "{EXAMPLE_QUERY}".')]


class Filters(BaseModel):
    """What a query or an answer is restricted to (all optional)."""

    model_config = ConfigDict(extra="forbid")

    citekeys: list[str] = Field(
        default_factory=list, description="Only these papers (empty: every paper)."
    )
    tags: list[str] = Field(
        default_factory=list, description="Only papers with one of these library tags."
    )
    collections: list[str] = Field(
        default_factory=list,
        description="Only papers in one of these library collections, as paths from the top: "
        "'Thesis/Chapter 2'.",
    )
    year_from: int | None = Field(None, description="Only papers published in or after this year.")
    year_to: int | None = Field(None, description="Only papers published in or before this year.")
    section: str | None = Field(
        None, description="Words that must occur in the section path, e.g. 'methods'."
    )

    def options(self, per_doc: int, **more: Any) -> QueryOptions:
        """The query service's options; ``per_doc`` 0: no limit per document."""
        from citeloom.services.query import QueryOptions

        return QueryOptions(
            citekeys=tuple(self.citekeys),
            tags=tuple(self.tags),
            collections=tuple(self.collections),
            year_from=self.year_from,
            year_to=self.year_to,
            sections=(self.section,) if self.section else (),
            per_doc=per_doc or None,
            **more,
        )


class QueryRequest(Request, Filters):
    query: QueryText = Field(
        description='What to find, in your own words; "quoted phrases" must occur verbatim.'
    )
    top_k: TopK = Field(
        None,
        description=f"Passages to return at most (default {DEFAULT_TOP_K}; with budget, as many "
        f"as fit, up to {MAX_TOP_K}).",
    )
    per_doc: PerDoc = Field(
        None, description="Passages from one paper at most (0: no limit; unset: [query] per_doc)."
    )
    budget: Budget = Field(
        None,
        description="Return the best passages until this many tokens (labels included) are "
        "spent, for an LLM's context.",
    )

    def options(self, per_doc: int, **more: Any) -> QueryOptions:
        """``per_doc``: the configured default ([query] per_doc) when the request sets none."""
        chosen = per_doc if self.per_doc is None else self.per_doc
        return super().options(chosen, top_k=self.top_k, budget=self.budget, **more)


class QueryResponse(Response):
    query: str = Field(description="The query as sent.")
    project: str = Field(description="The project searched.")
    answerable: bool = Field(
        description="Whether the passages seem to answer the query (confidence over the "
        "project's threshold); false: they are listed, but treat them as leads."
    )
    confidence: float = Field(description="0 to 1: how well the best passages match.")
    min_confidence: float | None = Field(
        None,
        description="The project's confidence floor ([query] min_confidence): answerable when "
        "confidence reaches it; a passage whose own confidence is under it is a weaker match.",
    )
    results: list[PassageOut] = Field(description="The passages, best first.")
    phrases: list[str] | None = Field(
        None, description='The "quoted phrases" every result contains (only when quoted).'
    )
    note: str | None = Field(
        None, description="Why results are missing or few: nothing ingested, nothing fits."
    )

    @classmethod
    def from_report(cls, report: QueryReport) -> QueryResponse:
        optional: dict[str, Any] = {}
        if report.phrases:
            optional["phrases"] = list(report.phrases)
        if report.note:
            optional["note"] = report.note
        return cls(
            query=report.query,
            project=report.project,
            answerable=report.answerable,
            confidence=round(report.confidence, 3),
            min_confidence=report.min_confidence,
            results=[PassageOut.from_passage(p) for p in report.results],
            **optional,
        )


def query(deps: Dependencies, request: QueryRequest, deadline: Deadline | None) -> QueryResponse:
    deps.project(request.project)
    options = request.options(deps.builders.per_doc)
    embedder = deps.embedder(request.project)  # loaded before the index is taken
    with deps.index(deadline, request.project) as index:
        service = deps.builders.query_service(request.project, index, embedder)
        return QueryResponse.from_report(service.search(request.query, options))


QUERY = UseCase("query", QueryRequest, QueryResponse, query)
