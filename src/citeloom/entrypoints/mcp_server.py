"""``citeloom mcp``: the tools of ``mcp_tools`` served with the official MCP Python SDK.

The server is the SDK's low-level ``Server`` with our own tool list and call handler: the
tools keep their JSON schemas, and every failure, argument errors included, reaches the agent
as a tool error carrying the taxonomy's code and fix (the SDK's own validation would answer
argument errors in its words). The same ``Server`` can be mounted over streamable HTTP.

Nothing here imports Docling or torch, and the embedding model loads on the first call that
needs it (``tests/integration/test_fast_paths.py``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp.server.lowlevel import Server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

from citeloom import __version__
from citeloom.config import Settings
from citeloom.entrypoints.mcp_tools import TOOLS, ToolRuntime, ToolSpec, to_text
from citeloom.entrypoints.runtime import Runtime

if TYPE_CHECKING:
    from citeloom.entrypoints.mcp_views import McpCheckResponse

INSTRUCTIONS = (
    "citeloom searches the user's own library of papers and returns citable passages. Start "
    "with list_projects, then query_hybrid (passages) or answer (verified quotes); cite with "
    "each result's label ([@key, p. 12], the page printed in the journal). Read around a hit "
    "with get_passage before citing it; check_citations checks a draft's citations. Errors "
    "carry a code and a fix."
)


def tool_list(projects: Sequence[str] = (), specs: Sequence[ToolSpec] = TOOLS) -> list[Tool]:
    """The tools as a client lists them; ``project`` arguments name the configured ones."""
    return [
        Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema(projects),
            annotations=ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )
        for spec in specs
    ]


def build_server(runtime: ToolRuntime) -> Server[Any]:
    tools = tool_list(sorted(runtime.settings.project), list(runtime.tools.values()))

    async def on_list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        answer, failed = await runtime.call_async(params.name, params.arguments or {})
        return CallToolResult(
            content=[TextContent(type="text", text=to_text(answer))],
            structured_content=answer,
            is_error=failed,
        )

    return Server(
        "citeloom",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def serve_stdio(settings: Settings) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    runtime = Runtime(settings)
    server = build_server(ToolRuntime(runtime))

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        runtime.close()


def check(settings: Settings) -> McpCheckResponse:
    """What a client would see, through a real in-process MCP session: the tools, the
    projects, and how long each project's embedding model takes to load."""
    import anyio
    from mcp import Client

    from citeloom.entrypoints.mcp_views import McpCheckResponse

    runtime = Runtime(settings)
    server = build_server(ToolRuntime(runtime))
    seen: dict[str, Any] = {"tools": [], "projects": [], "models": [], "errors": []}

    async def run() -> None:
        async with Client(server) as client:
            started = time.perf_counter()
            listed = await client.list_tools()
            seen["tools"] = [{"name": t.name, "description": t.description} for t in listed.tools]
            seen["list_tools_s"] = round(time.perf_counter() - started, 3)
            result = await client.call_tool("list_projects", {})
            answer = result.structured_content or {}
            if result.is_error:
                seen["errors"].append(answer.get("error"))
            seen["projects"] = answer.get("projects", [])

    anyio.run(run)
    app = runtime.app
    for name in app.project_names:
        model = app.project(name).embedding_model
        if any(m["model"] == model for m in seen["models"]):
            continue
        try:
            seen["models"].append({"model": model, "load_s": round(app.load_model(name), 3)})
        except Exception as error:  # the check reports it; a client would get the same
            seen["errors"].append({"project": name, "model": model, "message": str(error)})
    return McpCheckResponse.model_validate(seen)
