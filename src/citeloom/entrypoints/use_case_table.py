"""The use cases ``citeloom serve`` and ``citeloom mcp`` serve, in one table: each row names
a use case (``services/usecases/``: its request, its response, its handler) and how it is
reached over HTTP (method, path, what /docs says) and as an MCP tool (name, what an agent is
told, its arguments when MCP takes them in another shape, the view an agent reads).
``http/routes.py`` registers a route for every row with ``http`` and ``mcp_tools.py`` a tool
for every row with ``mcp``; neither names a use case of its own.

A new use case served by both is its module, its row here and, for the CLI, its text in
``render.py`` (docs/development.md walks through one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from citeloom.entrypoints import mcp_views as views
from citeloom.entrypoints.mcp_arguments import FindArgs, InspectArgs, PassageArgs, QueryArgs
from citeloom.services.usecases import (
    answer,
    check,
    chunks,
    document_file,
    health,
    inspect,
    notes,
    passage,
    projects,
    query,
)

if TYPE_CHECKING:
    from citeloom.services.application import Citeloom
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.base import UseCase


@dataclass(frozen=True)
class Http:
    """A use case as an HTTP route: ``POST`` takes the request as its JSON body, ``GET`` as
    query parameters (none for a request without fields). ``reply``: how the response is
    sent (default: its JSON, as ``--json`` prints it)."""

    method: Literal["GET", "POST"]
    path: str
    summary: str
    description: str | None = None
    reply: Callable[[Any], Any] | None = None
    responses: Callable[[], dict[int | str, Any]] | None = None  # more of /docs, read at start


# a tool's answer: (the use case's response, the arguments, [mcp] max_chars_per_chunk)
View = Callable[[Any, Any, int], dict[str, Any]]
Call = Callable[["Citeloom", Any, "Deadline", int], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    """A use case as an MCP tool. ``args``: what the tool takes when it is not the request
    itself (a request is then made of it by its ``request()``); ``view``: what the agent reads
    of the response (default: all of it); ``call``: a tool that runs more than its use case."""

    name: str
    description: str
    args: type[Any] | None = None
    view: View | None = None
    call: Call | None = None
    read_only: bool = True


@dataclass(frozen=True)
class Served:
    use_case: UseCase[Any, Any]
    http: Http | None = None
    mcp: Tool | None = None


FILE_ROUTE = "/file"


def _file(stored: Any) -> Any:
    from citeloom.entrypoints.http.files import file_response

    return file_response(stored)


def _file_responses() -> dict[int | str, Any]:
    from citeloom.entrypoints.http.files import FILE_RESPONSES

    return FILE_RESPONSES


def _inspect_collection(app: Citeloom, args: InspectArgs, deadline: Deadline, _: int) -> dict:
    """MCP inspect_collection: what the project holds and, when asked, its relations."""
    request = args.request()
    held = app.run(inspect.INSPECT, request, deadline)
    related = app.run(inspect.RELATIONS, request, deadline) if args.relations else None
    return views.inspect_view(held, related)


TABLE: tuple[Served, ...] = (
    Served(
        projects.LIST_PROJECTS,
        Http("GET", "/projects", "The configured projects and what each holds (MCP list_projects)"),
        Tool(
            "list_projects",
            "List the citeloom projects (libraries) this server can search: id, collection, "
            "embedding model, documents and chunks. Call it first to learn the project ids.",
        ),
    ),
    Served(
        inspect.INSPECT,
        mcp=Tool(
            "inspect_collection",
            "What one project holds: each document with citekey, title, year, pages, chunks "
            "and how it was matched to the library; unmatched documents with their best "
            "candidates. relations: true adds the relations between entries (versions, "
            "retractions, errata).",
            args=InspectArgs,
            call=_inspect_collection,
        ),
    ),
    Served(
        query.QUERY,
        Http("POST", "/query", "The best passages, with citation labels (citeloom query --json)"),
        Tool(
            "query_hybrid",
            "Search a project for citable passages (BM25 and vectors fused, near-duplicates "
            "removed). Each result has a pandoc label such as [@key, p. 12] (the page printed "
            "in the journal) to paste into a draft, its section path and chunk_id; kind 'note' "
            "marks a stored note, never the paper's words. 'answerable' false means the library "
            "does not seem to answer the question: say so rather than cite the passages as an "
            "answer. 'superseded_by', 'retracted', 'versions' and 'banner' tell of a preprint "
            "whose version of record is in the library, a retracted paper, an erratum: cite "
            "accordingly.",
            args=QueryArgs,
            view=views.query_view,
        ),
    ),
    Served(
        answer.ANSWER,
        Http("POST", "/answer", "An answer of verified quotes, or leads (citeloom answer --json)"),
        Tool(
            "answer",
            "Answer a question from the project's papers with their own sentences, never "
            "generated text: each quote verified on its page, cited with its pandoc label "
            "([@key, p. 118], the page printed in the journal). 'fallback' true means the "
            "library does not answer it ('reason' says why, 'absent' names what no paper "
            "mentions): say so, and do not cite the leads as an answer.",
        ),
    ),
    Served(
        check.CHECK,
        Http(
            "POST",
            "/check",
            "Each citation of a draft checked against its page (citeloom check --json)",
        ),
        Tool(
            "check_citations",
            "Check a draft's citations against the papers: for each [@key, p. N] (or \\cite), "
            "whether the cited page states what the sentence claims, numbers included. "
            "Verdicts: supported, mismatch (what differs is named), unconfirmed (the page "
            "discusses it but citeloom cannot confirm it: read the quoted sentence), other-page "
            "and no-page (the page to cite), no-such-page, not-found, unknown-key, "
            "not-ingested, malformed (the citation cannot be read as written: an unclosed "
            "bracket, a range that runs backwards; the message says the fix); each with its "
            "line, a message and the evidence quote; 'notes' name a version of record to cite "
            "instead and warn of a retracted paper (the verdict is about the claim alone). Use "
            "it before the user submits a text.",
        ),
    ),
    Served(
        chunks.FIND_CHUNKS,
        mcp=Tool(
            "find_chunks",
            "Browse one paper by citekey in reading order, optionally one section or page, "
            "'limit' chunks at a time; pass next_cursor back to continue.",
            args=FindArgs,
            view=views.chunks_view,
        ),
    ),
    Served(
        passage.PASSAGE,
        Http("POST", "/passage", "A passage between its neighbours in its paper (MCP get_passage)"),
        Tool(
            "get_passage",
            "One chunk by chunk_id with up to 3 neighbouring chunks on each side, to read "
            "around a hit before citing it.",
            args=PassageArgs,
            view=views.context_view,
        ),
    ),
    Served(
        notes.STORE_NOTES,
        mcp=Tool(
            "store_chunks",
            "Keep text citable in a project (notes, excerpts): each item is chunked and "
            "embedded like an ingested paper and found by query_hybrid afterwards. At most 200 "
            "items per call; a citekey must be in the project's library. Storing the same item "
            "again changes nothing. Returns the correlation id of the call's audit.",
            read_only=False,
        ),
    ),
    Served(
        notes.LIST_NOTES,
        mcp=Tool(
            "list_notes",
            "The notes stored in a project (store_chunks): doc_id, the paper and page each is "
            "on, tags and text. Notes are never the papers' words.",
        ),
    ),
    Served(
        notes.DELETE_NOTES,
        mcp=Tool(
            "delete_notes",
            "Delete notes by doc_id (from store_chunks or list_notes), every chunk of each. An "
            "id that is not a note of the project deletes nothing and fails with INVALID_INPUT.",
            read_only=False,
        ),
    ),
    Served(
        document_file.DOCUMENT_FILE,
        Http(
            "GET",
            FILE_ROUTE,
            "The stored file of the paper a passage is in, as it was ingested; add #page=N to "
            "open a PDF at page_start",
            description="Only the file a stored document of the project was ingested from (its "
            "path comes from the index, never from the request), still as it was ingested, "
            "under the same token as every route.",
            reply=_file,
            responses=_file_responses,
        ),
    ),
    Served(
        health.HEALTH,
        Http("GET", "/health", "Whether the index answers and the models are loaded"),
    ),
)
