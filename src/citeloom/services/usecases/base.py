"""What every use case is made of: a request model, a response model and a handler, named
together by a ``UseCase``; and the parts of requests and responses all of them share.

A request is validated once, whichever entry point built it: the CLI (``build``, a ``ConfigError``
naming the field, exit 2), HTTP (422 naming the field) or MCP (INVALID_INPUT). A response is
what leaves the process, the same model for ``--json``, HTTP and MCP, so a script can move
from one entry point to another without changing a key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloom.domain.errors import ConfigError

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies

R = TypeVar("R", bound=BaseModel)
S = TypeVar("S")


@dataclass(frozen=True)
class UseCase(Generic[R, S]):
    """One thing citeloom does, as every entry point runs it: ``handle(dependencies, request,
    deadline)`` answers the request with the response. ``deadline``: a server's time
    limit (None: the application's own, ``dependencies.CALL_S``)."""

    name: str
    request: type[R]
    response: type[S]
    handle: Callable[[Dependencies, R, Deadline | None], S]


class Request(BaseModel):
    """A request about one project."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is named, not ignored

    project: str = Field(
        min_length=1,
        description='The project id, a [project."ID"] of the config ("example"), as '
        "list_projects returns it.",
    )


class NoRequest(BaseModel):
    """A use case that takes nothing (the projects, the server's health)."""

    model_config = ConfigDict(extra="forbid")


class Response(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def dump(self) -> dict[str, Any]:
        """As the CLI prints it: optional keys only when the report had them."""
        return self.model_dump(mode="json", exclude_unset=True)


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


M = TypeVar("M", bound=BaseModel)


def build(model: type[M], **fields: Any) -> M:
    """``model(**fields)``, or a ``ConfigError`` naming the field at fault (the CLI's usage
    error, exit 2)."""
    try:
        return model(**fields)
    except ValidationError as error:
        raise ConfigError(described(error)) from None


def same(model: type[BaseModel], field: str) -> Any:
    """A field as ``model`` declares it (type rules, bounds, description), for an entry point's own
    model that takes the same value in another shape (MCP's query with nested filters)."""
    return model.model_fields[field]
