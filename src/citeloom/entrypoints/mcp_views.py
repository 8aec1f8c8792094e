"""What MCP's tools return: projections of the wire models every door shares
(``services.responses``), with the fields an agent reads and each passage's text trimmed to
[mcp] max_chars_per_chunk (``render_text``; ``full_text`` adds the whole).

A view takes its fields from the wire model by name (``projection``), so a field is declared
and described once, and what it holds is what ``--json`` and HTTP hold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, create_model

from citeloom.domain.records import Passage
from citeloom.services.browse import ChunkPage, PassageContext
from citeloom.services.query import QueryReport
from citeloom.services.responses import PassageOut, QueryResponse, RelationFlags, _Response

TRIMMED = "…"


def projection(name: str, model: type[BaseModel], fields: tuple[str, ...], **more: Any) -> Any:
    """A model of ``fields`` of ``model``, declared as ``model`` declares them, and ``more``."""
    chosen: dict[str, Any] = {
        f: (model.model_fields[f].annotation, model.model_fields[f]) for f in fields
    }
    return create_model(name, __base__=_Response, **chosen, **more)


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


ChunksView = create_model(
    "ChunksView",
    __base__=_Response,
    project=(str, ...),
    citekey=(str, ...),
    total=(int, Field(description="The paper's chunks in all.")),
    chunks=(_list_of(PassageView), Field(description="This page of them, in reading order.")),
    next_cursor=(str | None, Field(description="For the next page; null: no more.")),
)
ContextView = create_model(
    "ContextView",
    __base__=_Response,
    project=(str, ...),
    passage=(PassageView, ...),
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


def passage_json(passage: Passage, max_chars: int, full_text: bool) -> dict[str, Any]:
    """A passage as every tool shows it: what citing needs, the text trimmed for reading."""
    wire = PassageOut.from_passage(passage).dump()
    view = _shown({k: wire[k] for k in _CITING if k in wire}, passage.text, max_chars, full_text)
    return PassageView.model_validate(view).dump()


def query_view(report: QueryReport, max_chars: int, full_text: bool) -> dict[str, Any]:
    wire = QueryResponse.from_report(report).dump()
    results = []
    for passage, out in zip(report.results, wire["results"], strict=True):
        fields = {k: out[k] for k in ("rank", "score", *_CITING) if k in out}
        if passage.trimmed:
            fields["budget_trimmed"] = True
        results.append(_shown(fields, passage.text, max_chars, full_text))
    kept = {k: v for k, v in wire.items() if k in QueryView.model_fields}
    return QueryView.model_validate({**kept, "results": results}).dump()


def chunks_view(page: ChunkPage, max_chars: int, full_text: bool) -> dict[str, Any]:
    chunks = [passage_json(p, max_chars, full_text) for p in page.passages]
    fields = {"project": page.project, "citekey": page.citekey, "total": page.total}
    view = {**fields, "chunks": chunks, "next_cursor": page.next_cursor}
    return ChunksView.model_validate(view).dump()


def context_view(found: PassageContext, max_chars: int, full_text: bool) -> dict[str, Any]:
    def shown(passages: Sequence[Passage]) -> list[dict[str, Any]]:
        return [passage_json(p, max_chars, full_text) for p in passages]

    (passage,) = shown([found.passage])
    view = {"project": found.project, "passage": passage}
    return ContextView.model_validate(
        {**view, "before": shown(found.before), "after": shown(found.after)}
    ).dump()
