"""The HTTP API's request bodies: the request of each use case (``services.requests``) and
``render``, the text the CLI would print, which a CLI handing its request to a running
``citeloom serve`` asks for (``handoff``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeloom.services import requests
from citeloom.services.requests import Filters

_RENDER = (
    "Also return, as rendered, the text the CLI prints in this format (a CLI on the same "
    "machine hands its request to a running serve; unset: JSON only)."
)


class QueryRequest(requests.QueryRequest):
    render: Literal["text", "markdown", "context"] | None = Field(None, description=_RENDER)


class AnswerRequest(requests.AnswerRequest):
    within: Filters | None = Field(
        None,
        description="Answer only from the passages these filters let through (those of "
        "POST /query: citekeys, tags, collections, year_from, year_to, section); unset: the "
        "whole project.",
    )
    render: Literal["text", "markdown"] | None = Field(None, description=_RENDER)


class CheckRequest(requests.CheckRequest):
    render: Literal["text"] | None = Field(None, description=_RENDER)


class PassageRequest(requests.PassageRequest):
    """POST /passage: MCP get_passage's request (its JSON as the other bodies', no render)."""
