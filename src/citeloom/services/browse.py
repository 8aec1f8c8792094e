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
from citeloom.domain.text import trim
from citeloom.ports import IndexReader, RelationSource, SearchFilter
from citeloom.services.stored_file import StoredFile, read_as_ingested

# A paper holds a few hundred chunks at most; anything beyond is not one paper's worth.
MAX_DOCUMENT_CHUNKS = 20_000
MAX_CONTEXT = 3
# characters of a refused chunk id a message repeats: a UUID is 36, a forged one may be 100 kB
ECHOED = 80
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

    def _payload(self, chunk_id: str) -> dict[str, Any]:
        """The stored record of the project's chunk ``chunk_id``; a forged or foreign id is
        refused by the same message, which echoes at most ``ECHOED`` characters of it."""
        payload = (
            self.index.payloads(self.collection, [chunk_id]).get(chunk_id)
            if _UUID.match(chunk_id)
            else None
        )
        if not payload or payload.get("project") != self.project:
            raise ConfigError(
                f"no chunk '{trim(chunk_id, ECHOED)}' in project '{self.project}'. Pass a "
                "chunk_id that query_hybrid or find_chunks returned for this project."
            )
        return payload

    def get_passage(self, chunk_id: str, context: int = 0) -> PassageContext:
        """The chunk ``chunk_id`` with ``context`` (0-3) chunks before and after it in its
        document."""
        if not 0 <= context <= MAX_CONTEXT:
            raise ConfigError(f"context {context}: ask for 0 to {MAX_CONTEXT} neighbours.")
        payload = self._payload(chunk_id)
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

    def document_file(self, chunk_id: str) -> StoredFile:
        """The file the paper holding ``chunk_id`` was ingested from, for a door that hands
        it out (the web page's "Open file"). The path is only ever one the project's index
        recorded at ingest, never one a caller names, and the file is read only as it was
        ingested (``stored_file``), so no other file of the machine can be reached."""
        payload = self._payload(chunk_id)
        found = passage_from_payload(0, 0.0, chunk_id, payload)
        if found.kind == "note":
            raise ConfigError(
                f"chunk '{chunk_id}' is a note stored beside the papers: it has no file. Open "
                "the paper it cites instead."
            )
        sha256 = str((payload.get("source") or {}).get("sha256") or "")
        document = found.citekey or found.doc_id
        return read_as_ingested(Path(found.source), sha256, self.project, document)
