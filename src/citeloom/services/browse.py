"""Browsing a project by metadata rather than by a query: a paper's chunks in reading order,
and one chunk with its neighbours, so a reader (or an agent) can read around a hit before
citing it. Every lookup is restricted to the project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citeloom.domain.errors import ConfigError
from citeloom.domain.records import Passage, passage_from_payload
from citeloom.ports import IndexReader, RelationSource, SearchFilter

# A paper holds a few hundred chunks at most; anything beyond is not one paper's worth.
MAX_DOCUMENT_CHUNKS = 20_000
MAX_CONTEXT = 3
_UUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")


@dataclass
class ChunkPage:
    """One page of a paper's chunks in reading order; ``next_cursor`` continues it."""

    project: str
    citekey: str
    passages: list[Passage] = field(default_factory=list)
    total: int = 0
    next_cursor: str | None = None


@dataclass
class PassageContext:
    """A chunk and up to ``context`` chunks of the same document on each side."""

    project: str
    passage: Passage
    before: list[Passage] = field(default_factory=list)
    after: list[Passage] = field(default_factory=list)


def _reading_order(item: tuple[str, dict[str, Any]]) -> tuple[str, str, int]:
    payload = item[1]
    source = payload.get("source") or {}
    return (source.get("path", ""), payload.get("doc_id", ""), payload.get("chunk_index", 0))


def _passages(found: dict[str, dict[str, Any]]) -> list[Passage]:
    return [
        passage_from_payload(0, 0.0, chunk_id, payload)
        for chunk_id, payload in sorted(found.items(), key=_reading_order)
    ]


def _covers(passage: Passage, page: int) -> bool:
    if passage.page_start is None:
        return False
    return passage.page_start <= page <= (passage.page_end or passage.page_start)


def _offset(cursor: str | None) -> int:
    if cursor is None or cursor == "":
        return 0
    if not cursor.isdigit():
        raise ConfigError(
            f"cursor {cursor!r} is not one this server gave out. Pass the next_cursor of the "
            "previous find_chunks answer, or leave it out to start from the beginning."
        )
    return int(cursor)


class BrowseService:
    def __init__(
        self,
        *,
        project: str,
        collection: str,
        index: IndexReader,
        relations: RelationSource | None = None,
    ) -> None:
        self.project = project
        self.collection = collection
        self.index = index
        self.relations = relations

    def _flagged(self, passages: list[Passage]) -> list[Passage]:
        """The passages with their papers' relation flags, as query results carry them."""
        if self.relations is None or not passages:
            return passages
        graph = self.relations.with_documents([f for p in passages if (f := p.facts)])
        return [replace(p, flags=graph.flags(p.citekey, p.arxiv_stamp)) for p in passages]

    def find_chunks(
        self,
        citekey: str,
        section: str | None = None,
        page: int | None = None,
        cursor: str | None = None,
        limit: int = 20,
    ) -> ChunkPage:
        """A paper's chunks in reading order (file, then position in it), optionally those
        of one section (words of its heading path) or covering one page, ``limit`` at a
        time."""
        start = _offset(cursor)
        words = tuple(re.findall(r"\w+", section or ""))
        filters = SearchFilter(project=self.project, citekeys=(citekey,), sections=words)
        passages = _passages(self.index.chunks(self.collection, filters, MAX_DOCUMENT_CHUNKS))
        if page is not None:
            passages = [p for p in passages if _covers(p, page)]
        if not passages and not self.index.count(
            self.collection, SearchFilter(project=self.project, citekeys=(citekey,))
        ):
            raise ConfigError(
                f"no document with citekey '{citekey}' in project '{self.project}'. Check the "
                "spelling; inspect_collection lists the project's citekeys."
            )
        end = start + limit
        return ChunkPage(
            project=self.project,
            citekey=citekey,
            passages=self._flagged(passages[start:end]),
            total=len(passages),
            next_cursor=str(end) if end < len(passages) else None,
        )

    def get_passage(self, chunk_id: str, context: int = 0) -> PassageContext:
        """The chunk ``chunk_id`` with ``context`` (0-3) chunks before and after it in its
        document."""
        if not 0 <= context <= MAX_CONTEXT:
            raise ConfigError(f"context {context}: ask for 0 to {MAX_CONTEXT} neighbours.")
        missing = ConfigError(
            f"no chunk '{chunk_id}' in project '{self.project}'. Pass a chunk_id that "
            "query_hybrid or find_chunks returned for this project."
        )
        if not _UUID.match(chunk_id):
            raise missing
        payload = self.index.payloads(self.collection, [chunk_id]).get(chunk_id)
        if not payload or payload.get("project") != self.project:
            raise missing
        found = {chunk_id: payload}
        position = int(payload.get("chunk_index", 0))
        if context:
            filters = SearchFilter(
                project=self.project,
                doc_ids=(str(payload.get("doc_id", "")),),
                chunk_range=(position - context, position + context),
            )
            found.update(self.index.chunks(self.collection, filters, 2 * context + 1))
        ordered = sorted(found.items(), key=_reading_order)
        at = next(i for i, (key, _) in enumerate(ordered) if key == chunk_id)
        passages = self._flagged(_passages(dict(ordered)))
        return PassageContext(
            project=self.project,
            passage=passages[at],
            before=passages[:at],
            after=passages[at + 1 :],
        )

    def document_file(self, chunk_id: str) -> Path:
        """The file the paper holding ``chunk_id`` was ingested from, for a door that opens
        it (the web page's PDF link). The path is only ever one the project's index recorded
        at ingest, never one a caller names, so no other file of the machine can be reached."""
        found = self.get_passage(chunk_id).passage
        if found.kind == "note":
            raise ConfigError(
                f"chunk '{chunk_id}' is a note stored beside the papers: it has no file. Open "
                "the paper it cites instead."
            )
        path = Path(found.source)
        if not path.is_file():
            raise ConfigError(
                f"{path}: the file of {found.citekey or found.doc_id} is no longer there (moved "
                "or deleted since it was ingested). Put it back, or ingest it from its new "
                f"place (citeloom ingest FOLDER -p {self.project})."
            )
        return path
