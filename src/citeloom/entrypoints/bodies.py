"""The HTTP API's request bodies: the request of each use case (``services.requests``) and
``render``, the text the CLI would print, which a CLI handing its request to a running
``citeloom serve`` asks for (``handoff``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeloom.services import requests

_RENDER = (
    "Also return, as rendered, the text the CLI prints in this format (a CLI on the same "
    "machine hands its request to a running serve; unset: JSON only)."
)


class QueryRequest(requests.QueryRequest):
    render: Literal["text", "markdown", "context"] | None = Field(None, description=_RENDER)


class AnswerRequest(requests.AnswerRequest):
    render: Literal["text", "markdown"] | None = Field(None, description=_RENDER)


class CheckRequest(requests.CheckRequest):
    render: Literal["text"] | None = Field(None, description=_RENDER)
