"""Export and import: move a project between engines (embedded, server, cluster) without
re-embedding, through a versioned JSONL file.

The file (format ``citeloom-export``, version ``FORMAT_VERSION``)::

    {"format": "citeloom-export", "version": 2, "project": ..., "collection": ...,
     "embed_model": ..., "dimensions": 384, "tokenizer": "wordpiece:...", "points": N,
     "created_by": "citeloom 0.1.0", "created_at": "..."}
    {"id": "<uuid>", "vector": [...], "bm25": {"indices": [...], "values": [...]},
     "payload": {...}, "text": "<the chunk's text>"}
    ... one line per point

Version 2 payloads carry each document's printed page labels (``doc.page_labels``), the kind
of each chunk (paper or note) and a note's own fields; version 1 files still import (their
passages cite PDF pages until the next ingest labels them).

Vectors are written as JSON numbers that read back to the same float32, and the BM25 vector as
stored, so the imported collection answers queries exactly as the exported one did. The model
id and tokenizer fingerprint are the write guard's evidence: an import into a project whose
model or tokenizer differs is refused (exit 4) before anything is written, and so is one into a
collection that already holds points. The whole file is checked before the first point is
written, and a collection the import created is dropped again if a write fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeloom import __version__
from citeloom.domain.errors import CiteloomError, ConfigError, EmbeddingModelMismatch
from citeloom.domain.models import IndexPoint
from citeloom.ports import Index
from citeloom.services.export_file import check_target, write_atomically

FORMAT = "citeloom-export"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # 1: before printed page labels, chunk kinds and note payloads
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

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "collection": self.collection,
            "embed_model": self.embed_model,
            "points": self.points,
            "documents": self.documents,
            "file": self.file,
        }


def export_project(
    index: Index, project: str, collection: str, tokenizer: str | None, path: Path
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
) -> TransferReport:
    """Load an export into the project's (empty or new) collection under ``project``.

    ``embed_model`` and ``tokenizer`` are the project's: its queries are embedded with them, so
    vectors of another model or tokenizer would be meaningless there."""
    header, points = _read(path)
    stored_tokenizer = header.get("tokenizer")
    if header["embed_model"] != embed_model:
        raise ExportModelMismatch(
            path, f"vectors of embedding model '{header['embed_model']}'", project, embed_model
        )
    if tokenizer and stored_tokenizer and stored_tokenizer != tokenizer:
        raise ExportModelMismatch(
            path, f"chunks cut by tokenizer {stored_tokenizer}", project, f"{tokenizer}"
        )
    index.check_model(collection, embed_model)
    info = index.collection_info(collection)
    if info is not None and info.points:
        raise ConfigError(
            f"collection '{collection}' of project '{project}' already holds {info.points} "
            "points; nothing was imported. Import into a project with a new collection, or "
            "remove this one first."
        )
    created = info is None
    index.ensure_collection(collection, embed_model, int(header["dimensions"]))
    try:
        for start in range(0, len(points), PAGE):
            page = points[start : start + PAGE]
            index.upsert_points(collection, [_relabelled(p, project) for p in page])
        index.optimize(collection)
    except BaseException:
        if created:
            index.drop_collection(index.physical(collection))
        raise
    return TransferReport(project, collection, embed_model, len(points), _documents(points), "")


def _all_points(index: Index, collection: str) -> Iterator[IndexPoint]:
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


def _read(path: Path) -> tuple[dict[str, Any], list[IndexPoint]]:
    """The whole file, checked line by line before anything is written."""
    try:
        lines = path.open(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror}).") from error
    points: list[IndexPoint] = []
    with lines:
        try:
            header = _header(path, next(lines, ""))
            for number, line in enumerate(lines, start=2):
                points.append(_point(path, number, line, int(header["dimensions"])))
        except UnicodeDecodeError as error:
            raise ConfigError(f"{path}: not a citeloom export (not UTF-8 text).") from error
    if len(points) != header["points"]:
        raise ConfigError(
            f"{path}: holds {len(points)} points but its header says {header['points']}; the "
            "file is incomplete. Export the project again."
        )
    return header, points


def _header(path: Path, line: str) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ConfigError(
            f"{path}: not a citeloom export (its first line is not a '{FORMAT}' header). "
            "Make one with: citeloom export --project P FILE"
        )
    if header.get("version") not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise ConfigError(
            f"{path}: export format version {header.get('version')!r}, this citeloom reads "
            f"versions {readable}. Import it with the citeloom version that wrote it "
            f"({header.get('created_by', 'unknown')}) or export it again."
        )
    missing = [k for k in ("embed_model", "dimensions", "points") if k not in header]
    if missing:
        raise ConfigError(f"{path}: line 1: the header lacks {', '.join(missing)}.")
    return header


def _point(path: Path, number: int, line: str, dimensions: int) -> IndexPoint:
    try:
        data = json.loads(line)
        bm25 = data["bm25"]
        point = IndexPoint(
            id=str(data["id"]),
            vector=[float(x) for x in data["vector"]],
            text=str(data["text"]),
            payload=dict(data["payload"]),
            sparse=([int(i) for i in bm25["indices"]], [float(v) for v in bm25["values"]]),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise _bad_line(path, number, f"not a point ({type(error).__name__}: {error})") from error
    if len(point.vector) != dimensions:
        raise _bad_line(path, number, f"{len(point.vector)} dimensions, header: {dimensions}")
    return point


def _bad_line(path: Path, number: int, what: str) -> CiteloomError:
    return ConfigError(f"{path}: line {number}: {what}. The file is damaged; export it again.")
