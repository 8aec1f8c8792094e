"""What MCP's tools return where an agent reads less than the whole response: projections of
the use cases' response models (``services/usecases/``), with the fields an agent reads and
each passage's text trimmed to [mcp] max_chars_per_chunk (``render_text``; ``full_text`` adds
the whole); inspect_collection's shorter listing; and the models of a tool's failure and of
``citeloom mcp --check``.

A view takes its fields from the response model by name (``projection``), so a field is
declared and described once, and what it holds is what ``--json`` and HTTP hold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, create_model

from citeloom.services.usecases.base import Response
from citeloom.services.usecases.chunks import ChunksResponse
from citeloom.services.usecases.inspect import (
    CandidateOut,
    InspectResponse,
    RelationsResponse,
    StoredDocumentOut,
)
from citeloom.services.usecases.passage import PassageContextResponse
from citeloom.services.usecases.projects import ProjectOut
from citeloom.services.usecases.query import QueryResponse
from citeloom.services.usecases.wire import PassageOut, RelationFlags

TRIMMED = "…"


def projection(name: str, model: type[BaseModel], fields: tuple[str, ...], **more: Any) -> Any:
    """A model of ``fields`` of ``model``, declared as ``model`` declares them, and ``more``."""
    chosen: dict[str, Any] = {
        f: (model.model_fields[f].annotation, model.model_fields[f]) for f in fields
    }
    return create_model(name, __base__=Response, **chosen, **more)


def _list_of(view: Any) -> Any:
    """``list[view]`` for a view made at run time (a type checker cannot read the name)."""
    return list.__class_getitem__(view)


_CITING = (
    "chunk_id", "doc_id", "label", "citekey", "title", "authors", "year", "doi", "url",
    "page_start", "page_end", "page_label_start", "page_label_end", "page_label_source",
    "kind", "section_path", "zotero", *RelationFlags.model_fields,
)  # fmt: skip
_SHOWN = {
    "render_text": (str, Field(description="The text, trimmed to [mcp] max_chars_per_chunk.")),
    "render_trimmed": (bool, Field(description="render_text is cut short.")),
    "text": (str | None, Field(None, description="The whole text (full_text).")),
}
PassageView = projection("PassageView", PassageOut, _CITING, **_SHOWN)
RankedView = projection(
    "RankedView",
    PassageOut,
    ("rank", "score", *_CITING),
    **_SHOWN,
    budget_trimmed=(bool | None, Field(None, description="Cut to fit the budget.")),
)
QueryView = projection(
    "QueryView",
    QueryResponse,
    ("query", "project", "answerable", "confidence", "note"),
    results=(_list_of(RankedView), Field(description="The passages, best first.")),
)
_NEXT = ChunksResponse.model_fields["next_cursor"]
ChunksView = projection(
    "ChunksView",
    ChunksResponse,
    ("project", "citekey", "total"),
    chunks=(_list_of(PassageView), Field(description="This page of them, in reading order.")),
    next_cursor=(_NEXT.annotation, _NEXT),
)
ContextView = projection(
    "ContextView",
    PassageContextResponse,
    ("project",),
    passage=(PassageView, Field(description="The passage asked for.")),
    before=(_list_of(PassageView), Field(description="The chunks before it, nearest last.")),
    after=(_list_of(PassageView), Field(description="The chunks after it, nearest first.")),
)


def _trim(text: str, max_chars: int) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + TRIMMED, True


def _shown(wire: dict[str, Any], text: str, max_chars: int, full_text: bool) -> dict[str, Any]:
    render_text, render_trimmed = _trim(text, max_chars)
    shown = {"render_text": render_text, "render_trimmed": render_trimmed}
    return {**wire, **shown, **({"text": text} if full_text else {})}


def passage_json(passage: PassageOut, max_chars: int, full_text: bool) -> dict[str, Any]:
    """A passage as every tool shows it: what citing needs, the text trimmed for reading."""
    wire = passage.dump()
    view = _shown({k: wire[k] for k in _CITING if k in wire}, passage.text, max_chars, full_text)
    return PassageView.model_validate(view).dump()


def query_view(response: QueryResponse, args: Any, max_chars: int) -> dict[str, Any]:
    wire = response.dump()
    results = []
    for passage, out in zip(response.results, wire["results"], strict=True):
        fields = {k: out[k] for k in ("rank", "score", *_CITING) if k in out}
        if passage.trimmed:
            fields["budget_trimmed"] = True
        results.append(_shown(fields, passage.text, max_chars, args.full_text))
    kept = {k: v for k, v in wire.items() if k in QueryView.model_fields}
    return QueryView.model_validate({**kept, "results": results}).dump()


def chunks_view(response: ChunksResponse, args: Any, max_chars: int) -> dict[str, Any]:
    chunks = [passage_json(p, max_chars, args.full_text) for p in response.chunks]
    fields = {"project": response.project, "citekey": response.citekey, "total": response.total}
    view = {**fields, "chunks": chunks, "next_cursor": response.next_cursor}
    return ChunksView.model_validate(view).dump()


def context_view(response: PassageContextResponse, args: Any, max_chars: int) -> dict[str, Any]:
    def shown(passages: Sequence[PassageOut]) -> list[dict[str, Any]]:
        return [passage_json(p, max_chars, args.full_text) for p in passages]

    (passage,) = shown([response.passage])
    view = {"project": response.project, "passage": passage}
    return ContextView.model_validate(
        {**view, "before": shown(response.before), "after": shown(response.after)}
    ).dump()


# ---------------------------------------------------------------------- inspect_collection
class McpDocumentOut(Response):
    """One document, as MCP inspect_collection lists it (a shorter view than the CLI's)."""

    doc_id: str = Field(description="The stored document's id.")
    citekey: str | None = Field(description="The library entry it is matched to.")
    title: str | None = Field(description="The title, from the library.")
    year: int | None = Field(description="Year of publication.")
    pages: int | None = Field(description="PDF pages.")
    chunks: int = Field(description="Chunks stored.")
    match: str | None = Field(description="How it was matched.")
    complete: bool = Field(description="Every chunk is stored.")
    path: str = Field(description="The file it was ingested from.")


class UnmatchedOut(Response):
    doc_id: str = Field(description="The stored document's id.")
    title: str | None = Field(description="The title, if known.")
    path: str = Field(description="The file it was ingested from.")
    problem: str | None = Field(description="Why it is unmatched.")
    candidates: list[CandidateOut] = Field(description="Entries it might be, best first.")

    @classmethod
    def of(cls, doc: StoredDocumentOut) -> UnmatchedOut:
        candidates = [
            CandidateOut(citekey=c.citekey, score=round(c.score, 3)) for c in doc.candidates
        ]
        return cls(
            doc_id=doc.doc_id,
            title=doc.title,
            path=doc.path,
            problem=doc.problem,
            candidates=candidates,
        )


class McpInspectResponse(Response):
    """MCP inspect_collection: the collection, its documents and the unmatched ones."""

    project: str = Field(description="The project inspected.")
    collection: str = Field(description="Its Qdrant collection.")
    embedding_model: str | None = Field(description="The model its vectors were made with.")
    chunks: int = Field(description="Chunks stored.")
    documents: list[McpDocumentOut] = Field(description="Every stored document.")
    unmatched: list[UnmatchedOut] = Field(description="Documents matched to no entry.")
    relations: RelationsResponse | None = Field(None, description="Only when asked for.")


def inspect_view(held: InspectResponse, relations: RelationsResponse | None) -> dict[str, Any]:
    fields = tuple(McpDocumentOut.model_fields)
    view = McpInspectResponse(
        project=held.project,
        collection=held.collection,
        embedding_model=held.embed_model,
        chunks=held.points,
        documents=[
            McpDocumentOut.model_validate({f: getattr(d, f) for f in fields})
            for d in held.documents
        ],
        unmatched=[UnmatchedOut.of(d) for d in held.documents if d.citekey is None],
        **({"relations": relations} if relations else {}),
    )
    return view.dump()


# ---------------------------------------------------------------------- failures and --check
class ToolErrorOut(Response):
    code: str = Field(description="The MCP error code (entrypoints.outcomes).")
    message: str = Field(description="What is wrong, naming the file or argument.")
    fix: str = Field(description="What to do about it.")


class ToolErrorResponse(Response):
    """What an MCP tool answers when it fails (with isError set)."""

    error: ToolErrorOut = Field(description="The failure.")

    @classmethod
    def of(cls, code: str, message: str, fix: str) -> ToolErrorResponse:
        return cls(error=ToolErrorOut(code=code, message=message, fix=fix))


class ToolOut(Response):
    name: str = Field(description="The tool's name.")
    description: str | None = Field(description="What the client is told it does.")


class ModelLoadOut(Response):
    model: str = Field(description="An embedding model of a configured project.")
    load_s: float = Field(description="Seconds it took to load.")


class CheckErrorOut(Response):
    project: str | None = Field(None, description="The project whose model failed to load.")
    model: str | None = Field(None, description="That model.")
    code: str | None = Field(None, description="The MCP error code of a tool that failed.")
    message: str = Field(description="What went wrong.")
    fix: str | None = Field(None, description="What to do about it.")


class McpCheckResponse(Response):
    """``citeloom mcp --check``: what an MCP client would see."""

    tools: list[ToolOut] = Field(description="The tools, as list_tools gives them.")
    projects: list[ProjectOut] = Field(description="list_projects' answer.")
    models: list[ModelLoadOut] = Field(description="Each project's model, loaded here.")
    errors: list[CheckErrorOut] = Field(description="What a client would be refused.")
    list_tools_s: float | None = Field(None, description="Seconds list_tools took.")
