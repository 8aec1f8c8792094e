"""Export and import: move a project between engines (embedded, server, cluster) without
re-embedding, through a versioned JSONL file.

The file (format ``citeloom-export``, version ``FORMAT_VERSION``)::

    {"format": "citeloom-export", "version": 2, "project": ..., "collection": ...,
     "embed_model": ..., "dimensions": 384, "tokenizer": "wordpiece:...", "points": N,
     "languages": ["english"], "created_by": "citeloom 0.1.0", "created_at": "..."}
    {"id": "<uuid>", "vector": [...], "bm25": {"indices": [...], "values": [...]},
     "payload": {...}, "text": "<the chunk's text>"}
    ... one line per point

Version 2 payloads carry each document's printed page labels (``doc.page_labels``), the kind
of each chunk (paper or note) and a note's own fields; version 1 files still import (their
passages cite PDF pages until the next ingest labels them).

Vectors are written as JSON numbers that read back to the same float32, and the BM25 vector as
stored, so the imported collection answers queries exactly as the exported one did. The model
id and tokenizer fingerprint are the write guard's evidence: an import into a project whose
model or tokenizer differs is refused (exit 4) before anything is written, and so is one whose
BM25 vectors were stemmed for other languages than the project's (``languages``; a file without
them holds English ones), and one into a collection that already holds points. Every line of
the file is checked before the first point is written (``export_file``), and the points go
into a staging collection that the project switches to only when all of them are in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeloom import __version__
from citeloom.domain.errors import (
    CiteloomError,
    ConfigError,
    EmbeddingModelMismatch,
    LanguagesMismatch,
)
from citeloom.domain.languages import DEFAULT_LANGUAGES, same_languages
from citeloom.domain.models import IndexPoint
from citeloom.ports import Index, IndexReader, IndexWriter
from citeloom.services.export_file import (
    FORMAT,
    FORMAT_VERSION,
    ExportHeader,
    ExportReader,
    check_target,
    damaged,
    write_atomically,
)
from citeloom.services.staging import build_and_switch, staging_name

PAGE = 256


class ExportModelMismatch(EmbeddingModelMismatch):
    """The write guard at import: the file's vectors are not the project's model's."""

    def __init__(self, path: Path, holds: str, project: str, configured: str) -> None:
        CiteloomError.__init__(
            self,
            f"{path} holds {holds}, but project '{project}' uses '{configured}': its queries "
            "could not be compared with them, so nothing was imported. Import it into a project "
            "configured for the file's model, or re-ingest the documents there.",
        )


@dataclass(frozen=True)
class TransferReport:
    project: str
    collection: str
    embed_model: str
    points: int
    documents: int
    file: str


def export_project(
    index: IndexReader, project: str, collection: str, tokenizer: str | None, path: Path
) -> TransferReport:
    """Write the project's points to ``path``: a regular file or a new path, replaced only
    by a complete file (see ``export_file``)."""
    check_target(path)  # before reading a large index only to be refused
    info = index.collection_info(collection)
    if info is None:
        raise ConfigError(
            f"project '{project}' has no collection '{collection}' yet; there is nothing to "
            f"export. Run: citeloom ingest --project {project}"
        )
    points = [p for p in _all_points(index, collection) if p.payload.get("project") == project]
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "project": project,
        "collection": collection,
        "embed_model": info.embed_model,
        "dimensions": info.dimensions,
        "tokenizer": tokenizer,
        "points": len(points),
        "languages": list(info.languages),
        "created_by": f"citeloom {__version__}",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in _rows(header, points))
    write_atomically(path, lines)
    return TransferReport(
        project, collection, info.embed_model, len(points), _documents(points), str(path)
    )


def _rows(header: dict[str, Any], points: list[IndexPoint]) -> Iterator[dict[str, Any]]:
    yield header
    for point in points:
        yield _line(point)


def import_project(
    index: Index,
    project: str,
    collection: str,
    embed_model: str,
    tokenizer: str | None,
    path: Path,
    model_dimensions: Callable[[], int | None] = lambda: None,
    languages: tuple[str, ...] = DEFAULT_LANGUAGES,
) -> TransferReport:
    """Load an export into the project's (empty or new) collection under ``project``.

    ``embed_model``, ``tokenizer`` and ``model_dimensions`` (called once the file is found
    sound, as it may load the model) are the project's: its queries are embedded with them, so
    vectors of another model, tokenizer or length would be meaningless there; and so are
    ``languages``, which its BM25 queries are stemmed for.

    The points go into a staging collection and the project is switched to it once all are
    in (``staging``): a failed, interrupted or killed import leaves the project as it was,
    and the staging collection a killed one leaves behind is cleared by the next import."""
    with ExportReader(path) as export:
        header = export.header
        _check_model(path, header, project, embed_model, tokenizer)
        _check_languages(path, header, project, languages)
        points = export.points()
    _check_dimensions(path, header, project, embed_model, model_dimensions())
    index.check_owner(collection, project)
    index.check_model(collection, embed_model, languages)
    info = index.collection_info(collection)
    if info is not None and info.points:
        raise ConfigError(
            f"collection '{collection}' of project '{project}' already holds {info.points} "
            "points; nothing was imported. Import into a project with a new collection, or "
            f"remove this one first: citeloom drop --project {project}"
        )
    target = staging_name(index, collection)
    build_and_switch(
        index,
        collection,
        target,
        embed_model,
        header.dimensions,
        lambda: _store(index, target, points, project),
        languages,
        project=project,
    )
    return TransferReport(project, collection, embed_model, len(points), _documents(points), "")


def _check_model(
    path: Path, header: ExportHeader, project: str, embed_model: str, tokenizer: str | None
) -> None:
    if header.embed_model != embed_model:
        raise ExportModelMismatch(
            path, f"vectors of embedding model '{header.embed_model}'", project, embed_model
        )
    if tokenizer and header.tokenizer and header.tokenizer != tokenizer:
        raise ExportModelMismatch(
            path, f"chunks cut by tokenizer {header.tokenizer}", project, f"{tokenizer}"
        )


class ExportLanguagesMismatch(LanguagesMismatch):
    """The write guard at import: the file's BM25 terms were stemmed for other languages."""

    def __init__(self, path: Path, held: tuple[str, ...], project: str, wanted: tuple[str, ...]):
        CiteloomError.__init__(
            self,
            f"{path} holds BM25 terms for languages {', '.join(held)}, but project '{project}' "
            f"is configured for {', '.join(wanted)}: its full-text queries would not meet them, "
            f"so nothing was imported. Set languages = {json.dumps(list(held))} for the "
            "project and import the file, then set the languages you want and run: "
            f"citeloom reindex --project {project} (it rebuilds the BM25 vectors without "
            "re-embedding).",
        )


def _check_languages(
    path: Path, header: ExportHeader, project: str, languages: tuple[str, ...]
) -> None:
    if not same_languages(header.languages, languages):
        raise ExportLanguagesMismatch(path, header.languages, project, languages)


def _check_dimensions(
    path: Path, header: ExportHeader, project: str, embed_model: str, dimensions: int | None
) -> None:
    """Same model id, other length: the file was not written from this model's vectors, and
    every query of the project would fail against them."""
    if dimensions is not None and header.dimensions != dimensions:
        raise damaged(
            path,
            1,
            f"its vectors have {header.dimensions} dimensions, but '{embed_model}', the model "
            f"of project '{project}', makes vectors of {dimensions}: its queries could not be "
            "compared with them, so nothing was imported",
        )


def _store(index: IndexWriter, target: str, points: list[IndexPoint], project: str) -> bool:
    for start in range(0, len(points), PAGE):
        page = points[start : start + PAGE]
        index.upsert_points(target, [_relabelled(p, project) for p in page])
    return True


def _all_points(index: IndexReader, collection: str) -> Iterator[IndexPoint]:
    offset: str | None = None
    while True:
        page, offset = index.scroll_points(collection, offset, PAGE)
        yield from page
        if offset is None:
            return


def _line(point: IndexPoint) -> dict[str, Any]:
    indices, values = point.sparse or ([], [])
    return {
        "id": point.id,
        "vector": point.vector,
        "bm25": {"indices": indices, "values": values},
        "payload": point.payload,
        "text": point.text,
    }


def _documents(points: list[IndexPoint]) -> int:
    return len({p.payload.get("doc_id") for p in points})


def _relabelled(point: IndexPoint, project: str) -> IndexPoint:
    """The point under the importing project's name (queries filter by it)."""
    if point.payload.get("project") == project:
        return point
    return IndexPoint(
        point.id, point.vector, point.text, {**point.payload, "project": project}, point.sparse
    )
