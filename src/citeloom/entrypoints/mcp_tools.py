"""The MCP tools, written once for every transport (``citeloom mcp`` over stdio, and the HTTP
API that will mount them at /mcp).

Each tool validates its arguments, calls one service and shapes the answer; the use cases live
in ``services``. ``ToolRuntime`` is the warm part of a long-lived server: settings read once,
each embedding model loaded once on first use, and the index opened for one call at a time
and closed after it, so the embedded shard's lock is never held between calls and a
``citeloom ingest`` in a terminal proceeds while an editor's server is up.

Failures are answers an agent can act on: a machine-readable ``code`` from a fixed taxonomy,
the message, and a one-line ``fix``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from citeloom.config import ProjectConfig
from citeloom.domain.errors import CiteloomError
from citeloom.domain.notes import MAX_PAGE, MAX_TAGS
from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K
from citeloom.domain.verdicts import Verdict
from citeloom.entrypoints.outcomes import McpCode, outcome
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.schemas import (
    AnswerResponse,
    CheckResponse,
    ProjectOut,
    RelationFlags,
    flag_fields,
)
from citeloom.entrypoints.time_limit import Deadline

if TYPE_CHECKING:
    from citeloom.adapters.embedding.loader import LoadedEmbedder
    from citeloom.domain.records import Passage
    from citeloom.ports import Index

TRIMMED = "…"


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
        return cls(row.mcp_code, f"internal error ({type(error).__name__}: {error})", row.fix)

    def answer(self) -> dict[str, Any]:
        """The tool's answer: the failure as ``report_schemas.ToolErrorResponse``."""
        from citeloom.entrypoints.report_schemas import ToolErrorResponse

        return ToolErrorResponse.of(str(self.code), self.message, self.fix).dump()


# ---------------------------------------------------------------------- arguments
class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


ProjectField = Field(description="Project id, as list_projects returns it.")
FullText = Field(
    False, description="Also return each passage's full text (render_text is trimmed)."
)


class NoArgs(_Args):
    pass


class ProjectArgs(_Args):
    project: str = ProjectField


class InspectArgs(_Args):
    project: str = ProjectField
    relations: bool = Field(
        False,
        description="Also list the relations between library entries (versions of one work, "
        "supersession, retractions, errata, replies, conflicts), each with its evidence and "
        "certainty, as `citeloom inspect --relations` does.",
    )


class Filters(_Args):
    citekeys: list[str] = Field(default_factory=list, description="Only these papers.")
    tags: list[str] = Field(default_factory=list, description="Only papers with one of these.")
    collections: list[str] = Field(
        default_factory=list,
        description="Only papers in one of these library collections, as paths: "
        "'Thesis/Chapter 2'.",
    )
    year_from: int | None = Field(None, description="Published in or after this year.")
    year_to: int | None = Field(None, description="Published in or before this year.")
    section: str | None = Field(
        None, description="Words that must occur in the section path, e.g. 'methods'."
    )


class QueryArgs(_Args):
    project: str = ProjectField
    query: str = Field(
        description='What to find, in plain words. "Quoted phrases" must occur verbatim.'
    )
    top_k: int | None = Field(
        None,
        ge=1,
        le=MAX_TOP_K,
        description=f"Passages to return at most (default {DEFAULT_TOP_K}; with budget, as "
        f"many as fit, up to {MAX_TOP_K}).",
    )
    filters: Filters = Field(
        default_factory=Filters,
        description="Restrict the search (all optional): citekeys, tags, collections, "
        "year_from, year_to, section. An object; a JSON string of one is read too.",
    )
    budget: int | None = Field(
        None, ge=1, description="Return the best passages until this many tokens are spent."
    )
    per_doc: int | None = Field(
        None, ge=0, description="Passages from one paper at most (0: no limit; default 3)."
    )
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


class AnswerArgs(_Args):
    project: str = ProjectField
    question: str = Field(
        min_length=1, description="A question in plain words, e.g. 'how fast do marshes grow?'"
    )


class CheckArgs(_Args):
    project: str = ProjectField
    draft: str = Field(
        min_length=1,
        description="The draft's text, Markdown (pandoc citations: [@key, p. 12]) or LaTeX "
        "(\\cite[p.~12]{key}); the pages are the ones printed in the journal.",
    )
    format: Literal["auto", "markdown", "latex"] = Field(
        "auto", description="How the citations are written; auto tells them apart."
    )
    name: str = Field("draft", description="Named in the report, e.g. the file name.")
    fail_on: list[Verdict] | None = Field(
        None,
        description="The verdicts that make the check fail ('ok' false); default: the "
        "project's [check] fail_on (mismatch, no-page, no-such-page, not-found, "
        "unknown-key, not-ingested).",
    )


class FindArgs(_Args):
    project: str = ProjectField
    citekey: str = Field(description="The paper, by its citekey.")
    section: str | None = Field(None, description="Words of the section path to keep.")
    page: int | None = Field(None, ge=1, description="Only chunks on this (1-based) page.")
    cursor: str | None = Field(None, description="next_cursor of the previous answer.")
    limit: int = Field(20, ge=1, le=100, description="Chunks per answer.")
    full_text: bool = FullText


class PassageArgs(_Args):
    project: str = ProjectField
    chunk_id: str = Field(description="A chunk_id from query_hybrid or find_chunks.")
    context: int = Field(0, ge=0, le=3, description="Neighbouring chunks on each side (0-3).")
    full_text: bool = FullText


class NoteArg(_Args):
    text: str = Field(description="The text to keep citable.")
    citekey: str | None = Field(None, description="The library entry it comes from.")
    title: str | None = Field(None, description="A title (default: the entry's title).")
    section: str | None = Field(None, description="The section it comes from.")
    page: int | None = Field(None, ge=1, le=MAX_PAGE, description="The page it comes from.")
    tags: list[str] = Field(
        default_factory=list, max_length=MAX_TAGS, description="Tags to filter by later."
    )


class DeleteNotesArgs(_Args):
    project: str = ProjectField
    doc_ids: list[str] = Field(
        min_length=1, max_length=200, description="Note ids (store_chunks' or list_notes' doc_id)."
    )


class StoreArgs(_Args):
    project: str = ProjectField
    items: list[NoteArg] = Field(max_length=200, description="At most 200 per call.")


# ---------------------------------------------------------------------- answers
def _trim(text: str, max_chars: int) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + TRIMMED, True


def passage_json(passage: Passage, max_chars: int, full_text: bool) -> dict[str, Any]:
    """A result as every tool returns it: what citing needs, the text trimmed for reading."""
    render, trimmed = _trim(passage.text, max_chars)
    out: dict[str, Any] = {
        "chunk_id": passage.chunk_id,
        "doc_id": passage.doc_id,
        "label": passage.label,
        "citekey": passage.citekey,
        "title": passage.title,
        "authors": list(passage.authors),
        "year": passage.year,
        "doi": passage.doi,
        "url": passage.url,
        "page_start": passage.page_start,
        "page_end": passage.page_end,
        "page_label_start": passage.page_label_start,
        "page_label_end": passage.page_label_end,
        "page_label_source": passage.page_label_source,
        "kind": passage.kind,
        "section_path": list(passage.section_path),
        "render_text": render,
        "render_trimmed": trimmed,
        # the fields of schemas.RelationFlags, as every door has them
        **RelationFlags(**flag_fields(passage.flags)).dump(),
    }
    if full_text:
        out["text"] = passage.text
    return out


# ---------------------------------------------------------------------- the tools
@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[_Args]
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


def _list_projects(rt: ToolRuntime, args: _Args, deadline: Deadline) -> dict[str, Any]:
    from citeloom.services.inspection import summarise_project

    projects = []
    with rt.index(deadline) as index:
        for name, project in sorted(rt.settings.project.items()):
            summary = summarise_project(index, name, project.collection, project.embedding_model)
            projects.append(ProjectOut.model_validate(summary, from_attributes=True).dump())
    return {"projects": projects}


def _inspect(rt: ToolRuntime, args: InspectArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap
    from citeloom.entrypoints.report_schemas import McpInspectResponse
    from citeloom.services.inspection import inspect_project, inspect_relations

    project = rt.project(args.project)
    relations = None
    with rt.index(deadline) as index:
        report = inspect_project(index, args.project, project.collection)
        if args.relations:
            source = bootstrap.relations(rt.settings, project)
            relations = inspect_relations(index, args.project, project.collection, source)
    return McpInspectResponse.of(report, relations).dump()


def _query(rt: ToolRuntime, args: QueryArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap
    from citeloom.entrypoints.query_options import query_options

    rt.project(args.project)
    f = args.filters
    options = query_options(
        rt.settings,
        top_k=args.top_k,
        citekeys=f.citekeys,
        tags=f.tags,
        collections=f.collections,
        year_from=f.year_from,
        year_to=f.year_to,
        section=f.section,
        per_doc=args.per_doc,
        budget=args.budget,
    )
    embedder = rt.embedder(args.project)
    with rt.index(deadline) as index:
        service = bootstrap.query_service(rt.settings, args.project, index, warm=embedder)
        report = service.search(args.query, options)
    results = []
    for passage in report.results:
        entry = {"rank": passage.rank, "score": round(passage.score, 6)}
        entry.update(passage_json(passage, rt.max_chars, args.full_text))
        if passage.trimmed:
            entry["budget_trimmed"] = True
        results.append(entry)
    out: dict[str, Any] = {
        "query": report.query,
        "project": report.project,
        "answerable": report.answerable,
        "confidence": round(report.confidence, 3),
        "results": results,
    }
    if report.note:
        out["note"] = report.note
    return out


def _find_chunks(rt: ToolRuntime, args: FindArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap

    rt.project(args.project)
    with rt.index(deadline) as index:
        page = bootstrap.browse_service(rt.settings, args.project, index).find_chunks(
            args.citekey, args.section, args.page, args.cursor, args.limit
        )
    return {
        "project": page.project,
        "citekey": page.citekey,
        "total": page.total,
        "chunks": [passage_json(p, rt.max_chars, args.full_text) for p in page.passages],
        "next_cursor": page.next_cursor,
    }


def _get_passage(rt: ToolRuntime, args: PassageArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap

    rt.project(args.project)
    with rt.index(deadline) as index:
        found = bootstrap.browse_service(rt.settings, args.project, index).get_passage(
            args.chunk_id, args.context
        )

    def shown(passage: Passage) -> dict[str, Any]:
        return passage_json(passage, rt.max_chars, args.full_text)

    return {
        "project": found.project,
        "passage": shown(found.passage),
        "before": [shown(p) for p in found.before],
        "after": [shown(p) for p in found.after],
    }


def _store_chunks(rt: ToolRuntime, args: StoreArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap
    from citeloom.domain.notes import NoteItem

    rt.project(args.project)
    items = [
        NoteItem(
            text=i.text,
            citekey=i.citekey,
            title=i.title,
            section=i.section,
            page=i.page,
            tags=tuple(i.tags),
        )
        for i in args.items
    ]
    embedder = rt.embedder(args.project)
    with rt.index(deadline) as index:
        service = bootstrap.note_service(rt.settings, args.project, index, warm=embedder)
        report = service.store(items, should_stop=deadline.expired, may_write=deadline.may_write)
    from citeloom.entrypoints.report_schemas import StoreResponse

    return StoreResponse.of(report).dump()


def _answer(rt: ToolRuntime, args: AnswerArgs, deadline: Deadline) -> dict[str, Any]:
    rt.embedder(args.project)  # loaded before the index is taken
    with rt.index(deadline) as index:
        report = rt.runtime.answer_service(args.project, index).answer(args.question)
    return AnswerResponse.from_report(report).dump()


def _check_citations(rt: ToolRuntime, args: CheckArgs, deadline: Deadline) -> dict[str, Any]:
    latex = None if args.format == "auto" else args.format == "latex"
    rt.embedder(args.project)  # loaded before the index is taken
    with rt.index(deadline) as index:  # a unit of work per citation
        service = rt.runtime.check_service(args.project, index)
        between = rt.runtime.between(index, deadline)
        fail_on = frozenset(args.fail_on) if args.fail_on is not None else None
        report = service.check(args.draft, args.name, latex, between=between, fail_on=fail_on)
    return CheckResponse.from_report(report).dump()


def _list_notes(rt: ToolRuntime, args: ProjectArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap

    rt.project(args.project)
    with rt.index(deadline) as index:
        notes = bootstrap.note_book(rt.settings, args.project, index).stored()
    from citeloom.entrypoints.report_schemas import NotesResponse

    return NotesResponse.of(args.project, notes).dump()


def _delete_notes(rt: ToolRuntime, args: DeleteNotesArgs, deadline: Deadline) -> dict[str, Any]:
    from citeloom import bootstrap

    rt.project(args.project)
    with rt.index(deadline) as index:
        deleted = bootstrap.note_book(rt.settings, args.project, index).delete(args.doc_ids)
    return {"project": args.project, "deleted": deleted}


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
        AnswerArgs,
        _answer,
    ),
    ToolSpec(
        "check_citations",
        "Check a draft's citations against the papers: for each [@key, p. N] (or \\cite), "
        "whether the cited page states what the sentence claims, numbers included. Verdicts: "
        "supported, mismatch (what differs is named), unconfirmed (the page discusses it but "
        "citeloom cannot confirm it: read the quoted sentence), other-page and no-page (the "
        "page to cite), no-such-page, not-found, unknown-key, not-ingested; each with its line, a "
        "message and the evidence quote; 'notes' name a version of record to cite instead "
        "and warn of a retracted paper (the verdict is about the claim alone). Use it before "
        "the user submits a text.",
        CheckArgs,
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
        StoreArgs,
        _store_chunks,
        read_only=False,
    ),
    ToolSpec(
        "list_notes",
        "The notes stored in a project (store_chunks): doc_id, the paper and page each is on, "
        "tags and text. Notes are never the papers' words.",
        ProjectArgs,
        _list_notes,
    ),
    ToolSpec(
        "delete_notes",
        "Delete notes by doc_id (from store_chunks or list_notes), every chunk of each. An id "
        "that is not a note of the project deletes nothing and fails with INVALID_INPUT.",
        DeleteNotesArgs,
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


def _plain(message: str) -> str:
    """A validation message without the names of Python classes ("or instance of Filters")."""
    message = re.sub(r"\s+or instance of \w+", "", message)
    return message.replace("a valid dictionary", "an object")


def _invalid(error: ValidationError) -> ToolFailure:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {_plain(e['msg'])}"
        for e in error.errors()
    )
    return ToolFailure(
        McpCode.INVALID_INPUT,
        f"invalid arguments ({problems})",
        "correct the argument the message names and call again",
    )


class ToolRuntime:
    """The MCP tools over the warm runtime (``runtime.Runtime``, shared with the REST routes
    when ``citeloom serve`` mounts them): arguments checked against the tool's schema, each
    call under [mcp] timeout_s, every failure answered with its MCP code and fix."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = runtime.settings
        self.max_chars = self.settings.mcp.max_chars_per_chunk
        self.limit = Limit(self.settings.mcp.timeout_s, "[mcp] timeout_s")

    def project(self, name: str) -> ProjectConfig:
        return self.runtime.project(name)

    def embedder(self, project_name: str) -> LoadedEmbedder:
        return self.runtime.embedder(project_name)

    def index(self, deadline: Deadline) -> AbstractContextManager[Index]:
        return self.runtime.index(deadline)

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
