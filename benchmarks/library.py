"""Benchmark libraries built through citeloom's own parts, with the embeddings cached.

A benchmark collection is written exactly as ingest writes one (the project's chunker,
embedder, ``domain.records.index_points`` and the index adapter's ``replace_document``); only
the conversion is skipped for records that are already text (the abstracts of the judged
collections). Vectors are cached on disk per model and text, so the 18,500 haystack abstracts
are embedded once per model, not once per run.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work"
sys.path.insert(0, str(ROOT / "src"))

from benchmarks.corpora import Record  # noqa: E402
from citeloom.domain.ids import doc_id_from_sha256  # noqa: E402
from citeloom.domain.models import Block, BlockKind, ConvertedDocument, MetadataMatch  # noqa: E402
from citeloom.domain.records import index_points  # noqa: E402
from citeloom.ports import Chunker, Embedder, Index  # noqa: E402


def write_config(
    folder: Path, project: str, collection: str, references: Path | None, model: str | None = None
) -> Path:
    """A throwaway project; every benchmark shares one cache (conversions, models). ``model``:
    the project's embedding model (default: citeloom's default)."""
    folder.mkdir(parents=True, exist_ok=True)
    if references is None:
        references = folder / "references.json"
        references.write_text("[]", encoding="utf-8")
    config = folder / "citeloom.toml"
    config.write_text(
        f'[paths]\ncache_dir = "{WORK / "cache"}"\n\n'
        f'[project."{project}"]\ncollection = "{collection}"\n'
        f'references_json = "{references}"\n' + (f'embedding_model = "{model}"\n' if model else ""),
        encoding="utf-8",
    )
    return config


def joined_library(folder: Path, *libraries: Path) -> Path:
    """Several CSL-JSON libraries as one file in ``folder``: a project over several corpora."""
    entries = []
    for path in libraries:
        entries += json.loads(path.read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    joined = folder / "library.json"
    joined.write_text(json.dumps(entries), encoding="utf-8")
    return joined


class CachedEmbedder:
    """An Embedder that remembers document vectors on disk (queries are always embedded)."""

    def __init__(self, inner: Embedder, folder: Path, autosave: bool = True) -> None:
        """``autosave``: write the file after every call that embedded something (a long
        build survives a stop); without it, only at ``save`` (many small calls: a check)."""
        self.inner = inner
        self.autosave = autosave
        self._fresh: dict[str, list[float]] = {}  # embedded since the last save
        self.folder = folder / inner.model_id.replace("/", "--")
        self.folder.mkdir(parents=True, exist_ok=True)
        self._keys: list[str] = []
        self._rows: dict[str, int] = {}
        self._matrix = np.zeros((0, inner.dimensions), dtype=np.float32)
        if (self.folder / "keys.json").is_file():
            self._keys = json.loads((self.folder / "keys.json").read_text())
            self._matrix = np.load(self.folder / "vectors.npy")
            self._rows = {k: i for i, k in enumerate(self._keys)}
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self.max_tokens = inner.max_tokens
        self.tokenizer_id = inner.tokenizer_id

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        missing = list(
            dict.fromkeys(
                t
                for t in texts
                if self._key(t) not in self._rows and self._key(t) not in self._fresh
            )
        )
        if missing:
            fresh = []
            for start in range(0, len(missing), 64):
                fresh.extend(self.inner.embed_documents(missing[start : start + 64]))
                done = min(start + 64, len(missing))
                if len(missing) > 256 and done % 1024 < 64:
                    print(f"  embedded {done}/{len(missing)}", flush=True)
            self._fresh.update(zip(map(self._key, missing), fresh, strict=True))
            if self.autosave:
                self.save()
        return [self._vector(self._key(t)) for t in texts]

    def _vector(self, key: str) -> list[float]:
        if key in self._fresh:
            return self._fresh[key]
        return self._matrix[self._rows[key]].tolist()

    def save(self) -> None:
        """Write the vectors embedded since the last save to the cache."""
        if not self._fresh:
            return
        fresh = np.asarray(list(self._fresh.values()), dtype=np.float32)
        self._matrix = np.vstack([self._matrix, fresh])
        for key in self._fresh:
            self._rows[key] = len(self._keys)
            self._keys.append(key)
        self._fresh = {}
        np.save(self.folder / "vectors.npy", self._matrix)
        (self.folder / "keys.json").write_text(json.dumps(self._keys))

    def known(self, texts: Sequence[str]) -> list[str]:
        """The ones of ``texts`` whose vectors are cached (nothing is embedded)."""
        return [t for t in texts if self._key(t) in self._rows]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_queries(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


class Remembered:
    """A proxy that answers each distinct call of ``methods`` once (a copy of the first answer
    after that): every fusion variant of a sweep ranks the same engine answers, so only the
    first one pays for the searches and the query embeddings."""

    def __init__(self, inner: Any, methods: Iterable[str]) -> None:
        self._inner = inner
        self._methods = set(methods)
        self._answers: dict[tuple, Any] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self._methods:
            return attr
        return self._remembering(name, attr)

    def _remembering(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def remembered(*args: Any) -> Any:
            key = (name, *(tuple(a) if isinstance(a, list) else a for a in args))
            if key not in self._answers:
                self._answers[key] = call(*args)
            answer = self._answers[key]
            return list(answer) if isinstance(answer, list) else answer

        return remembered


READS = ("collection_info", "term_weights", "dense_search", "text_search", "payloads", "count")


def remembered(index: Index, embedder: Embedder) -> tuple[Any, Any]:
    """The index's reads and the embedder's query vectors, each answered once."""
    return Remembered(index, READS), Remembered(embedder, ("embed_query",))


def record_document(record: Record) -> ConvertedDocument:
    """An abstract as a converted document: its title as the title, its text as one block."""
    source = f"haystack/{record.collection}/{record.id}"
    sha = hashlib.sha256(f"{source}\n{record.title}\n{record.text}".encode()).hexdigest()
    blocks = []
    if record.title:
        blocks.append(Block(record.title, BlockKind.TITLE, None))
    blocks.append(Block(record.text or record.title, BlockKind.TEXT, None))
    return ConvertedDocument(source, sha, record.title or None, None, tuple(blocks), "abstract")


def add_records(
    records: Iterable[Record],
    *,
    project: str,
    collection: str,
    chunker: Chunker,
    embedder: Embedder,
    index: Index,
    batch: int = 512,
) -> int:
    """Store each record as a document of the project; returns the chunks written. The
    records are new to the collection, so they go in with the bulk write (``upsert_points``,
    one durable write per batch) rather than ingest's per-document replace."""
    index.ensure_collection(collection, embedder.model_id, embedder.dimensions, project=project)
    records = list(records)
    written, start = 0, time.perf_counter()
    unmatched = MetadataMatch(None, None)
    for first in range(0, len(records), batch):
        documents = [record_document(r) for r in records[first : first + batch]]
        chunked = [(d, chunker.chunk(d, doc_id_from_sha256(d.sha256))) for d in documents]
        vectors = iter(embedder.embed_documents([c.embed_text for _, cs in chunked for c in cs]))
        points = []
        for document, chunks in chunked:
            points += index_points(
                project=project,
                document=document,
                match=unmatched,
                chunks=chunks,
                vectors=[next(vectors) for _ in chunks],
                embed_model=embedder.model_id,
                ingest_id="benchmark",
                library="",
            )
        index.upsert_points(collection, points)
        written += len(points)
        print(
            f"  stored {min(first + batch, len(records))}/{len(records)} records "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    return written
