"""What each use case takes, validated once for every door.

The CLI builds these (``build``), the HTTP bodies and MCP's arguments subclass them, the TUI
builds them: a bound, an empty query or draft, the LaTeX mapping of a check, the query options
with their configured default are each written here and nowhere else. A refusal names the
field: the CLI exits 2 (``ConfigError``), HTTP answers 422, MCP INVALID_INPUT.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from citeloom.domain.errors import ConfigError
from citeloom.domain.notes import MAX_PAGE, MAX_TAGS, NoteItem
from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K, QUERY_BOUNDS
from citeloom.domain.verdicts import Verdict
from citeloom.services.browse import MAX_CONTEXT
from citeloom.services.notes import MAX_ITEMS
from citeloom.services.query import QueryOptions

R = TypeVar("R", bound=BaseModel)
# The bounds every door holds a query to (the CLI's --top-k reads them too: ``bounds``).


def _bounded(field: str) -> Any:
    low, high = QUERY_BOUNDS[field]
    return Field(ge=low, le=high)


TopK = Annotated[int | None, _bounded("top_k")]
PerDoc = Annotated[int | None, _bounded("per_doc")]
Budget = Annotated[int | None, _bounded("budget")]
EXAMPLE_QUERY = "how fast do restored marshes accrete sediment"


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is named, not ignored

    project: str = Field(
        min_length=1,
        description='The project id, a [project."ID"] of the config ("example"), as '
        "list_projects returns it.",
    )


def _words(what: str, fix: str) -> AfterValidator:
    """A text that holds a word: there is nothing to rank or answer by otherwise."""

    def check(text: str) -> str:
        if not re.search(r"\w", text):
            raise ValueError(f"empty {what} {text!r}: {fix}")
        return text

    return AfterValidator(check)


# an empty text is refused by ``_words`` too, with the fix (not pydantic's "at least 1 character")
QueryText = Annotated[
    str, _words("query", f'say what you are looking for, e.g. "{EXAMPLE_QUERY}".')
]
QuestionText = Annotated[str, _words("question", f'ask in words, e.g. "{EXAMPLE_QUERY}?".')]


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


class AnswerRequest(Request):
    question: QuestionText = Field(
        description="A question the project's papers may answer, in plain words, e.g. 'how "
        "fast do marshes grow?'"
    )


class CheckRequest(Request):
    name: str = Field("draft", description="Shown in the report, e.g. the file name.")
    draft: str = Field(
        description="The draft's text: Markdown citing with pandoc ([@key, p. 12]) or LaTeX "
        "(\\cite[p.~12]{key}), the pages as printed in the journal."
    )
    format: Literal["auto", "markdown", "latex"] = Field(
        "auto",
        description="How to read the citations; auto: LaTeX when name ends in .tex or the "
        "text holds \\documentclass or a \\cite command, else Markdown.",
    )
    fail_on: list[Verdict] | None = Field(
        None,
        description="The verdicts that make the check fail (ok false); default: the "
        "project's [check] fail_on.",
    )

    @field_validator("draft")
    @classmethod
    def _a_draft(cls, text: str, info: ValidationInfo) -> str:
        if not text.strip():
            raise ValueError(
                f"{info.data.get('name') or 'the draft'} is empty: there is nothing to check. "
                "Pass a Markdown draft citing [@key, p. 12], or LaTeX citing \\cite[p.~12]{key}."
            )
        return text

    @property
    def latex(self) -> bool | None:
        """How the check reads the citations: None lets it tell Markdown from LaTeX."""
        return None if self.format == "auto" else self.format == "latex"

    @property
    def failing(self) -> frozenset[Verdict] | None:
        return frozenset(self.fail_on) if self.fail_on is not None else None


class FindChunksRequest(Request):
    citekey: str = Field(description="The paper, by its citekey.")
    section: str | None = Field(None, description="Words of the section path to keep.")
    page: int | None = Field(None, ge=1, description="Only chunks on this (1-based) page.")
    cursor: str | None = Field(None, description="next_cursor of the previous answer.")
    limit: int = Field(20, ge=1, le=100, description="Chunks per answer.")


class PassageRequest(Request):
    chunk_id: str = Field(description="A chunk_id from query_hybrid or find_chunks.")
    context: int = Field(
        0, ge=0, le=MAX_CONTEXT, description="Neighbouring chunks on each side (0-3)."
    )


class NoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="The text to keep citable.")
    citekey: str | None = Field(None, description="The library entry it comes from.")
    title: str | None = Field(None, description="A title (default: the entry's title).")
    section: str | None = Field(None, description="The section it comes from.")
    page: int | None = Field(None, ge=1, le=MAX_PAGE, description="The page it comes from.")
    tags: list[str] = Field(
        default_factory=list, max_length=MAX_TAGS, description="Tags to filter by later."
    )

    def item(self) -> NoteItem:
        fields = self.model_dump()
        return NoteItem(**{**fields, "tags": tuple(self.tags)})


class StoreNotesRequest(Request):
    items: list[NoteRequest] = Field(
        max_length=MAX_ITEMS, description=f"At most {MAX_ITEMS} per call."
    )


class DeleteNotesRequest(Request):
    doc_ids: list[str] = Field(
        min_length=1,
        max_length=MAX_ITEMS,
        description="Note ids (store_chunks' or list_notes' doc_id).",
    )


def plain(message: str) -> str:
    """A validation message in a user's words: without pydantic's "Value error, " and the
    names of Python classes ("or instance of Filters")."""
    message = re.sub(r"\s+or instance of \w+", "", message.removeprefix("Value error, "))
    return message.replace("a valid dictionary", "an object")


def described(error: ValidationError) -> str:
    """Every problem of a request, each after the field it is in: "top_k: ..."."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'request'}: {plain(e['msg'])}"
        for e in error.errors()
    )


def build(model: type[R], **fields: Any) -> R:
    """``model(**fields)``, or a ``ConfigError`` naming the field at fault (the CLI's usage
    error, exit 2)."""
    try:
        return model(**fields)
    except ValidationError as error:
        raise ConfigError(described(error)) from None


def same(model: type[BaseModel], field: str) -> Any:
    """A field as ``model`` declares it (type rules, bounds, description), for a door's own
    model that takes the same value in another shape (MCP's query with nested filters)."""
    return model.model_fields[field]
