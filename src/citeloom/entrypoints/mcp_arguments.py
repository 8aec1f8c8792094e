"""The arguments of MCP's tools where they are not the request of the tool's use case itself:
with what only MCP shows (``full_text``) or in MCP's shape (a query's filters as one object);
``request()`` makes the use case's request of them."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from citeloom.services.usecases.base import Request, same
from citeloom.services.usecases.chunks import FindChunksRequest
from citeloom.services.usecases.passage import PassageRequest
from citeloom.services.usecases.query import Filters, QueryRequest

FullText = Field(
    False, description="Also return each passage's full text (render_text is trimmed)."
)


class InspectArgs(Request):
    relations: bool = Field(
        False,
        description="Also list the relations between library entries (versions of one work, "
        "supersession, retractions, errata, replies, conflicts), each with its evidence and "
        "certainty, as `citeloom inspect --relations` does.",
    )

    def request(self) -> Request:
        return Request(project=self.project)


class QueryArgs(Request):
    query: str = same(QueryRequest, "query")
    top_k: int | None = same(QueryRequest, "top_k")
    filters: Filters = Field(
        default_factory=Filters,
        description="Restrict the search (all optional): citekeys, tags, collections, "
        "year_from, year_to, section. An object; a JSON string of one is read too.",
    )
    budget: int | None = same(QueryRequest, "budget")
    per_doc: int | None = same(QueryRequest, "per_doc")
    full_text: bool = FullText

    @field_validator("filters", mode="before")
    @classmethod
    def _filters_as_text(cls, value: Any) -> Any:
        """Some clients send an object argument as its JSON text."""
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else {}
            except ValueError:
                raise ValueError("filters: not a JSON object; send an object") from None
        return value

    def request(self) -> QueryRequest:
        fields = self.model_dump(exclude={"filters", "full_text"})
        return QueryRequest(**fields, **self.filters.model_dump())


class FindArgs(FindChunksRequest):
    full_text: bool = FullText

    def request(self) -> FindChunksRequest:
        return FindChunksRequest(**self.model_dump(exclude={"full_text"}))


class PassageArgs(PassageRequest):
    full_text: bool = FullText

    def request(self) -> PassageRequest:
        return PassageRequest(**self.model_dump(exclude={"full_text"}))
