"""The MCP tools, written once for every transport (``citeloom mcp`` over stdio, and the HTTP
API that will mount them at /mcp).

Each tool validates its arguments (the request of its use case), calls one use case of the warm
application (``runtime.Runtime``) and shapes the answer.

Failures are answers an agent can act on: a machine-readable ``code`` from a fixed taxonomy,
the message, and a one-line ``fix``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from citeloom.domain.errors import CiteloomError
from citeloom.entrypoints.mcp_arguments import (
    FindArgs,
    InspectArgs,
    NoArgs,
    PassageArgs,
    QueryArgs,
)
from citeloom.entrypoints.mcp_views import chunks_view, context_view, query_view
from citeloom.entrypoints.outcomes import McpCode, internal, outcome
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.time_limit import Deadline
from citeloom.services import requests
from citeloom.services.responses import AnswerResponse, CheckResponse, ProjectsResponse

if TYPE_CHECKING:
    pass


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
        """The tool's answer: the failure as ``services.report_responses.ToolErrorResponse``."""
        from citeloom.services.report_responses import ToolErrorResponse

        return ToolErrorResponse.of(str(self.code), self.message, self.fix).dump()


# ---------------------------------------------------------------------- the tools
@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[ToolRuntime, Any, Deadline], dict[str, Any]]
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


def _list_projects(rt: ToolRuntime, args: NoArgs, deadline: Deadline) -> dict[str, Any]:
    return ProjectsResponse.of(rt.app.summaries(deadline)).dump()


def _inspect(rt: ToolRuntime, args: InspectArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom.services.report_responses import McpInspectResponse

    report = rt.app.inspect(args.project, deadline)
    relations = rt.app.relations(args.project, deadline) if args.relations else None
    return McpInspectResponse.of(report, relations).dump()


def _query(rt: ToolRuntime, args: QueryArgs, deadline: Deadline) -> dict[str, Any]:
    return query_view(rt.app.query(args.request(), deadline), rt.max_chars, args.full_text)


def _find_chunks(rt: ToolRuntime, args: FindArgs, deadline: Deadline) -> dict[str, Any]:
    return chunks_view(rt.app.find_chunks(args, deadline), rt.max_chars, args.full_text)


def _get_passage(rt: ToolRuntime, args: PassageArgs, deadline: Deadline) -> dict[str, Any]:
    return context_view(rt.app.passage(args, deadline), rt.max_chars, args.full_text)


def _store_chunks(
    rt: ToolRuntime, args: requests.StoreNotesRequest, deadline: Deadline
) -> dict[str, Any]:
    from citeloom.services.report_responses import StoreResponse

    return StoreResponse.of(rt.app.store_notes(args, deadline)).dump()


def _answer(rt: ToolRuntime, args: requests.AnswerRequest, deadline: Deadline) -> dict[str, Any]:
    return AnswerResponse.from_report(rt.app.answer(args, deadline=deadline)).dump()


def _check_citations(
    rt: ToolRuntime, args: requests.CheckRequest, deadline: Deadline
) -> dict[str, Any]:
    return CheckResponse.from_report(rt.app.check(args, deadline)).dump()


def _list_notes(rt: ToolRuntime, args: requests.Request, deadline: Deadline) -> dict[str, Any]:
    from citeloom.services.report_responses import NotesResponse

    return NotesResponse.of(args.project, rt.app.notes(args.project, deadline)).dump()


def _delete_notes(
    rt: ToolRuntime, args: requests.DeleteNotesRequest, deadline: Deadline
) -> dict[str, Any]:
    from citeloom.services.report_responses import DeletedNotesResponse

    deleted = rt.app.delete_notes(args, deadline)
    return DeletedNotesResponse(project=args.project, deleted=deleted).dump()


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_projects",
        "List the citeloom projects (libraries) this server can search: id, collection, "
        "embedding model, documents and chunks. Call it first to learn the project ids.",
        NoArgs,
        _list_projects,
    ),
    ToolSpec(
        "inspect_collection",
        "What one project holds: each document with citekey, title, year, pages, chunks and "
        "how it was matched to the library; unmatched documents with their best candidates. "
        "relations: true adds the relations between entries (versions, retractions, errata).",
        InspectArgs,
        _inspect,
    ),
    ToolSpec(
        "query_hybrid",
        "Search a project for citable passages (BM25 and vectors fused, near-duplicates "
        "removed). Each result has a pandoc label such as [@key, p. 12] (the page printed in "
        "the journal) to paste into a draft, its section path and chunk_id; kind 'note' marks "
        "a stored note, never the paper's words. 'answerable' false means the library does not "
        "seem to answer the question: say so rather than cite the passages as an answer. "
        "'superseded_by', 'retracted', 'versions' and 'banner' tell of a preprint whose "
        "version of record is in the library, a retracted paper, an erratum: cite accordingly.",
        QueryArgs,
        _query,
    ),
    ToolSpec(
        "answer",
        "Answer a question from the project's papers with their own sentences, never generated "
        "text: each quote verified on its page, cited with its pandoc label ([@key, p. 118], "
        "the page printed in the journal). 'fallback' true means the library does not answer "
        "it ('reason' says why, 'absent' names what no paper mentions): say so, and do not cite "
        "the leads as an answer.",
        requests.AnswerRequest,
        _answer,
    ),
    ToolSpec(
        "check_citations",
        "Check a draft's citations against the papers: for each [@key, p. N] (or \\cite), "
        "whether the cited page states what the sentence claims, numbers included. Verdicts: "
        "supported, mismatch (what differs is named), unconfirmed (the page discusses it but "
        "citeloom cannot confirm it: read the quoted sentence), other-page and no-page (the "
        "page to cite), no-such-page, not-found, unknown-key, not-ingested, malformed (the "
        "citation cannot be read as written: an unclosed bracket, a range that runs "
        "backwards; the message says the fix); each with its line, a message and the "
        "evidence quote; 'notes' name a version of record to cite instead "
        "and warn of a retracted paper (the verdict is about the claim alone). Use it before "
        "the user submits a text.",
        requests.CheckRequest,
        _check_citations,
    ),
    ToolSpec(
        "find_chunks",
        "Browse one paper by citekey in reading order, optionally one section or page, "
        "'limit' chunks at a time; pass next_cursor back to continue.",
        FindArgs,
        _find_chunks,
    ),
    ToolSpec(
        "get_passage",
        "One chunk by chunk_id with up to 3 neighbouring chunks on each side, to read around "
        "a hit before citing it.",
        PassageArgs,
        _get_passage,
    ),
    ToolSpec(
        "store_chunks",
        "Keep text citable in a project (notes, excerpts): each item is chunked and embedded "
        "like an ingested paper and found by query_hybrid afterwards. At most 200 items per "
        "call; a citekey must be in the project's library. Storing the same item again changes "
        "nothing. Returns the correlation id of the call's audit.",
        requests.StoreNotesRequest,
        _store_chunks,
        read_only=False,
    ),
    ToolSpec(
        "list_notes",
        "The notes stored in a project (store_chunks): doc_id, the paper and page each is on, "
        "tags and text. Notes are never the papers' words.",
        requests.Request,
        _list_notes,
    ),
    ToolSpec(
        "delete_notes",
        "Delete notes by doc_id (from store_chunks or list_notes), every chunk of each. An id "
        "that is not a note of the project deletes nothing and fails with INVALID_INPUT.",
        requests.DeleteNotesRequest,
        _delete_notes,
        read_only=False,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


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
        f"invalid arguments ({requests.described(error)})",
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

    def call(self, name: str, arguments: dict[str, Any], deadline: Deadline) -> dict[str, Any]:
        """Run one tool in this thread; an unknown tool or bad arguments are a
        ``ToolFailure``, anything else raised is the services' own error."""
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            raise ToolFailure(
                McpCode.INVALID_INPUT,
                f"no tool '{name}'; the tools are {', '.join(TOOLS_BY_NAME)}",
                "call one of the listed tools",
            )
        try:
            args = tool.args.model_validate(arguments)
        except ValidationError as error:
            raise _invalid(error) from None
        return tool.run(self, args, deadline)

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
