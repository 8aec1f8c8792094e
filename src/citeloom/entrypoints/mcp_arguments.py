"""The arguments of MCP's tools: each tool takes the request of its use case
(``services.requests``), some with what only MCP shows (``full_text``) or in MCP's shape (a
query's filters as one object)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from citeloom.services import requests

FullText = Field(
    False, description="Also return each passage's full text (render_text is trimmed)."
)


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InspectArgs(requests.Request):
    relations: bool = Field(
        False,
        description="Also list the relations between library entries (versions of one work, "
        "supersession, retractions, errata, replies, conflicts), each with its evidence and "
        "certainty, as `citeloom inspect --relations` does.",
    )


class QueryArgs(requests.Request):
    query: str = requests.same(requests.QueryRequest, "query")
    top_k: int | None = requests.same(requests.QueryRequest, "top_k")
    filters: requests.Filters = Field(
        default_factory=requests.Filters,
        description="Restrict the search (all optional): citekeys, tags, collections, "
        "year_from, year_to, section. An object; a JSON string of one is read too.",
    )
    budget: int | None = requests.same(requests.QueryRequest, "budget")
    per_doc: int | None = requests.same(requests.QueryRequest, "per_doc")
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

    def request(self) -> requests.QueryRequest:
        fields = self.model_dump(exclude={"filters", "full_text"})
        return requests.QueryRequest(**fields, **self.filters.model_dump())


class FindArgs(requests.FindChunksRequest):
    full_text: bool = FullText


class PassageArgs(requests.PassageRequest):
    full_text: bool = FullText
