"""The MCP tools, written once for every transport (``citeloom mcp`` over stdio, and ``citeloom
serve`` at /mcp), one for every use case of the table that has an MCP part
(``use_case_table.TABLE``).

Each tool validates its arguments (the request of its use case, or MCP's shape of it), runs
its use case on the warm application (``runtime.Runtime``) and shapes the answer.

Failures are answers an agent can act on: a machine-readable ``code`` from a fixed taxonomy,
the message, and a one-line ``fix``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import BaseModel, ValidationError

from citeloom.domain.errors import CiteloomError
from citeloom.entrypoints import use_case_table
from citeloom.entrypoints.mcp_views import ToolErrorResponse
from citeloom.entrypoints.outcomes import McpCode, internal, outcome
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.time_limit import Deadline
from citeloom.entrypoints.use_case_table import Served
from citeloom.services.usecases.base import described


class ToolFailure(Exception):
    """A call that fails: its MCP code, a message naming what is wrong, and what to do."""

    def __init__(self, code: McpCode, message: str, fix: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fix = fix

    @classmethod
    def of(cls, error: BaseException) -> ToolFailure:
        """An error the services raise, as the outcome table says MCP answers it."""
        row = outcome(error)
        if isinstance(error, CiteloomError):
            return cls(row.mcp_code, str(error), row.fix)
        return cls(row.mcp_code, internal(error), row.fix)

    def answer(self) -> dict[str, Any]:
        """The tool's answer: the failure as ``mcp_views.ToolErrorResponse``."""
        return ToolErrorResponse.of(str(self.code), self.message, self.fix).dump()


# ---------------------------------------------------------------------- the tools
@dataclass(frozen=True)
class ToolSpec:
    """A tool as a client lists and calls it, made from its row of the use-case table."""

    name: str
    description: str
    args: type[BaseModel]
    call: Callable[[ToolRuntime, Any, Deadline], dict[str, Any]]
    read_only: bool = True

    def input_schema(self, projects: Sequence[str] = ()) -> dict[str, Any]:
        """The arguments' JSON schema as a generic client (the MCP Inspector) can fill it:
        nested objects written out in place (no ``$ref``), and ``project`` one of the
        configured projects."""
        schema = _inlined(self.args.model_json_schema())
        project = schema.get("properties", {}).get("project")
        if project is not None and projects:
            project["enum"] = list(projects)
        return schema


def _spec(row: Served) -> ToolSpec:
    tool, use_case = row.mcp, row.use_case
    assert tool is not None
    args = tool.args or use_case.request

    def call(rt: ToolRuntime, given: Any, deadline: Deadline) -> dict[str, Any]:
        if tool.call is not None:
            return tool.call(rt.app, given, deadline, rt.max_chars)
        request = given.request() if tool.args is not None else given
        response = rt.app.run(use_case, request, deadline)
        return tool.view(response, given, rt.max_chars) if tool.view else response.dump()

    return ToolSpec(tool.name, tool.description, args, call, tool.read_only)


def tool_specs() -> dict[str, ToolSpec]:
    """Every tool of the use-case table, by name, in the table's order."""
    rows = use_case_table.TABLE
    return {row.mcp.name: _spec(row) for row in rows if row.mcp is not None}


TOOLS: tuple[ToolSpec, ...] = tuple(tool_specs().values())


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``{"$ref": "#/$defs/X"}`` replaced by X itself."""
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = resolve(dict(definitions[node["$ref"].rsplit("/", 1)[-1]]))
                return {**target, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return dict(resolve(schema))


def _invalid(error: ValidationError) -> ToolFailure:
    return ToolFailure(
        McpCode.INVALID_INPUT,
        f"invalid arguments ({described(error)})",
        "correct the argument the message names and call again",
    )


class ToolRuntime:
    """The MCP tools over the warm runtime (``runtime.Runtime``, shared with the REST routes
    when ``citeloom serve`` mounts them): arguments checked against the tool's schema, each
    call under [mcp] timeout_s, every failure answered with its MCP code and fix."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.app = runtime.app
        self.settings = runtime.settings
        self.max_chars = self.settings.mcp.max_chars_per_chunk
        self.limit = Limit(self.settings.mcp.timeout_s, "[mcp] timeout_s")
        self.tools = tool_specs()

    def call(self, name: str, arguments: dict[str, Any], deadline: Deadline) -> dict[str, Any]:
        """Run one tool in this thread; an unknown tool or bad arguments are a
        ``ToolFailure``, anything else raised is the services' own error."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolFailure(
                McpCode.INVALID_INPUT,
                f"no tool '{name}'; the tools are {', '.join(self.tools)}",
                "call one of the listed tools",
            )
        try:
            args = tool.args.model_validate(arguments)
        except ValidationError as error:
            raise _invalid(error) from None
        return tool.call(self, args, deadline)

    async def call_async(self, name: str, arguments: dict[str, Any]) -> tuple[dict, bool]:
        """Run a tool in a worker thread under [mcp] timeout_s: (answer, is_error).

        On time-out the server answers TIMEOUT at once and the worker stops before it writes
        anything; a write already under way is waited for and its answer returned."""
        try:
            answer = await self.runtime.run(name, partial(self.call, name, arguments), self.limit)
        except ToolFailure as failure:
            return failure.answer(), True
        except Exception as error:  # the services' errors, and a bug said plainly
            return ToolFailure.of(error).answer(), True
        return answer, False


def to_text(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False)
