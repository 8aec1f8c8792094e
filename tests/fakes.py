"""Fakes at the ports: fast, deterministic stand-ins for unit tests of the services."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from citeloom.adapters import bm25
from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.errors import (
    CollectionOwnerMismatch,
    DocumentError,
    EmbeddingModelMismatch,
    LanguagesMismatch,
)
from citeloom.domain.languages import DEFAULT_LANGUAGES, same_languages
from citeloom.domain.models import (
    Block,
    BlockKind,
    Chunk,
    CollectionInfo,
    ConvertedDocument,
    DocumentSummary,
    IndexPoint,
    MetadataMatch,
    Reference,
    ScoredPoint,
)
from citeloom.domain.records import summarise_documents
from citeloom.domain.relations import DocumentFacts, RelationGraph
from citeloom.ports.index import SearchFilter


class FakeConverter:
    """Reads 'PDFs' that are text files: '# ' lines are headings, '\f' starts a page."""

    converter_id = "fake-converter/1"

    def supports(self, path: Path) -> bool:
        return path.suffix == ".pdf"

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        text = path.read_text(encoding="utf-8")
        if text.startswith("BROKEN"):
            raise DocumentError(f"{path}: the PDF is damaged")
        blocks = []
        for number, page in enumerate(text.split("\f"), start=1):
            for line in filter(None, (x.strip() for x in page.splitlines())):
                if line.startswith("# "):
                    blocks.append(Block(line[2:], BlockKind.HEADING, number, 1))
                elif line.startswith("TITLE "):
                    blocks.append(Block(line[6:], BlockKind.TITLE, number))
                else:
                    blocks.append(Block(line, BlockKind.TEXT, number))
        title = next((b.text for b in blocks if b.kind is BlockKind.TITLE), None)
        return ConvertedDocument(
            source_path=str(path),
            sha256=sha256,
            title=title,
            page_count=text.count("\f") + 1,
            blocks=tuple(blocks),
            converter="fake",
        )


class FakeChunker:
    """One chunk per text block."""

    tokenizer_id = "fake"

    def chunk(self, document: ConvertedDocument, doc_id: str) -> list[Chunk]:
        chunks: list[Chunk] = []
        path: tuple[str, ...] = ()
        for block in document.blocks:
            if block.kind is BlockKind.HEADING:
                path = (block.text,)
            elif block.kind is BlockKind.TEXT:
                chunks.append(
                    Chunk(
                        doc_id, len(chunks), block.text, block.text, path, block.page, block.page, 1
                    )
                )
        return chunks

    def embed_text(self, text: str, section_path: Sequence[str]) -> str:
        return text


class FakeMetadata:
    format_name = "CSL-JSON"

    def __init__(self, refs: Sequence[Reference] = (), fingerprint: str = "lib-1") -> None:
        self.refs = list(refs)
        self.fingerprint = fingerprint

    def references(self) -> list[Reference]:
        return self.refs

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch:
        for ref in self.refs:
            if ref.citekey == hint:
                return MetadataMatch(ref, "hint", 1.0)
        for ref in self.refs:
            if document.title and ref.title.lower() == document.title.lower():
                return MetadataMatch(ref, "title", 1.0)
        return MetadataMatch(None, None, problem="MetadataMissing")

    def problems(self) -> list[LibraryProblem]:
        return []


class FakeEmbedder:
    """Bag-of-words hashed into a small normalised vector: similar words, similar vectors."""

    tokenizer_id = "fake"
    max_tokens = 256

    def __init__(self, model_id: str = "fake/bow-16", dimensions: int = 16) -> None:
        self.model_id = model_id
        self.dimensions = dimensions
        self.calls = 0

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimensions] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class FakeIndex:
    """In-memory index with the port's semantics: write guard, replace, project filter."""

    def __init__(self) -> None:
        self.collections: dict[str, dict[str, Any]] = {}
        self.aliases: dict[str, str] = {}
        self.optimized: list[str] = []  # collections optimised, in order
        self.closed = False  # close() was called (a with block ended)

    def physical(self, collection: str) -> str:
        return self.aliases.get(collection, collection)

    def switch_collection(self, collection: str, physical: str) -> str | None:
        old = self.physical(collection)
        self.aliases[collection] = physical
        return old if old != physical else None

    def drop_collection(self, physical: str) -> None:
        self.collections.pop(physical, None)

    def remove_alias(self, collection: str) -> None:
        self.aliases.pop(collection, None)

    def list_collections(self) -> list[str]:
        return sorted(self.collections)

    def collection_info(self, collection: str) -> CollectionInfo | None:
        c = self.collections.get(self.physical(collection))
        if c is None:
            return None
        return CollectionInfo(
            collection, c["model"], c["dim"], len(c["points"]), c["languages"], c["owner"]
        )

    def check_owner(self, collection: str, project: str) -> None:
        c = self.collections.get(self.physical(collection))
        if c is None:
            return
        # made before collections recorded their project: the one project all its chunks carry
        held = {p.payload.get("project") for p in c["points"].values()}
        owner = c["owner"] or (held.pop() if len(held) == 1 else None)
        if owner is not None and owner != project:
            raise CollectionOwnerMismatch(collection, owner, project)

    def check_model(
        self, collection: str, embed_model: str, languages: Sequence[str] | None = None
    ) -> None:
        c = self.collections.get(self.physical(collection))
        if c is not None and c["model"] != embed_model:
            raise EmbeddingModelMismatch(collection, c["model"], embed_model)
        if (
            c is not None
            and languages is not None
            and not same_languages(c["languages"], languages)
        ):
            raise LanguagesMismatch(collection, c["languages"], tuple(languages))

    def ensure_collection(
        self,
        collection: str,
        embed_model: str,
        dimensions: int,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        *,
        project: str,
    ) -> None:
        self.check_owner(collection, project)
        self.check_model(collection, embed_model, languages)
        c = self.collections.setdefault(
            collection,
            {
                "model": embed_model,
                "dim": dimensions,
                "points": {},
                "languages": tuple(languages),
                "owner": project,
            },
        )
        if c["owner"] is None:  # made before collections recorded their project
            c["owner"] = project

    def hand_over(self, collection: str, old: str, new: str) -> int:
        c = self.collections[self.physical(collection)]
        moved = [p for p in c["points"].values() if p.payload["project"] == old]
        for point in moved:
            point.payload["project"] = new
        c["owner"] = new
        return len(moved)

    def _languages(self, collection: str) -> tuple[str, ...]:
        c = self.collections.get(self.physical(collection))
        return c["languages"] if c is not None else DEFAULT_LANGUAGES

    def replace_document(
        self, collection: str, doc_id: str, source_path: str, points: Sequence[IndexPoint]
    ) -> None:
        stored = self.collections[self.physical(collection)]["points"]
        keep = {p.id for p in points}
        for pid in [
            pid
            for pid, p in stored.items()
            if (p.payload["doc_id"] == doc_id or p.payload["source"]["path"] == source_path)
            and pid not in keep
        ]:
            del stored[pid]
        stored.update({p.id: p for p in points})

    def upsert_points(self, collection: str, points: Sequence[IndexPoint]) -> None:
        self.collections[self.physical(collection)]["points"].update({p.id: p for p in points})

    def optimize(self, collection: str) -> None:
        self.optimized.append(self.physical(collection))

    def delete_document(self, collection: str, doc_id: str) -> None:
        stored = self.collections[self.physical(collection)]["points"]
        for pid in [pid for pid, p in stored.items() if p.payload["doc_id"] == doc_id]:
            del stored[pid]

    def relabel_document(self, collection: str, doc_id: str, fields: dict) -> None:
        for point in self.collections[self.physical(collection)]["points"].values():
            if point.payload["doc_id"] == doc_id:
                for key, values in fields.items():
                    point.payload[key].update(values)

    def documents(self, collection: str, project: str) -> list[DocumentSummary]:
        c = self.collections.get(self.physical(collection))
        if c is None:
            return []
        return summarise_documents(
            p.payload for p in c["points"].values() if p.payload["project"] == project
        )

    def _visible(self, collection: str, filters: SearchFilter) -> list[IndexPoint]:
        def words(text: str) -> str:
            return " " + " ".join(re.findall(r"\w+", text.lower())) + " "

        def keep(p: IndexPoint) -> bool:
            text = words(p.payload["fulltext"])
            section = words(" ".join(p.payload["doc"]["section_path"]))
            year = p.payload["doc"].get("year")
            return (
                p.payload["project"] == filters.project
                and (not filters.citekeys or p.payload["zotero"]["citekey"] in filters.citekeys)
                and (not filters.tags or bool(set(filters.tags) & set(p.payload["zotero"]["tags"])))
                and (
                    not filters.collections
                    or bool(
                        set(filters.collections) & set(p.payload["zotero"].get("collections") or ())
                    )
                )
                and (filters.year_from is None or (year is not None and year >= filters.year_from))
                and (filters.year_to is None or (year is not None and year <= filters.year_to))
                and all(words(w) in section for w in filters.sections)
                and all(words(ph) in text for ph in filters.phrases)
                and all(f" {w} " in text for t in filters.terms for w in words(t).split())
                and (not filters.point_ids or p.id in filters.point_ids)
                and (not filters.doc_ids or p.payload["doc_id"] in filters.doc_ids)
                and (
                    filters.chunk_range is None
                    or filters.chunk_range[0] <= p.payload["chunk_index"] <= filters.chunk_range[1]
                )
                and (filters.pages is None or _overlaps(p.payload["doc"], filters.pages))
            )

        return [
            p for p in self.collections[self.physical(collection)]["points"].values() if keep(p)
        ]

    def chunks(self, collection: str, filters: SearchFilter, limit: int) -> dict[str, dict]:
        if self.physical(collection) not in self.collections:
            return {}
        return {p.id: p.payload for p in self._visible(collection, filters)[:limit]}

    def count(self, collection: str, filters: SearchFilter) -> int:
        return (
            len(self._visible(collection, filters))
            if self.physical(collection) in self.collections
            else 0
        )

    def dense_search(self, collection, vector, filters, limit) -> list[ScoredPoint]:
        scored = [
            ScoredPoint(p.id, sum(a * b for a, b in zip(vector, p.vector, strict=True)), p.payload)
            for p in self._visible(collection, filters)
        ]
        return sorted(scored, key=lambda s: -s.score)[:limit]

    def _held(self, collection: str) -> list[set[int]]:
        stored = self.collections.get(self.physical(collection), {"points": {}})["points"]
        languages = self._languages(collection)
        return [set(bm25.encode_document(p.text, languages)[0]) for p in stored.values()]

    def _idf(self, collection: str, terms: Sequence[int]) -> dict[int, float]:
        held = self._held(collection)
        idf = {}
        for term in terms:
            df = sum(term in h for h in held)
            if df:
                idf[term] = math.log((len(held) - df + 0.5) / (df + 0.5) + 1)
        return idf

    def term_weights(self, collection: str, text: str) -> dict[str, float]:
        """The IDF Qdrant gives each query word's BM25 terms over the collection, with the
        real BM25 model's stop words and stems (``adapters.bm25``), as the adapters report it."""
        words, idf = bm25.weigh_query(
            text, self._languages(collection), lambda terms: self._idf(collection, terms)
        )
        return bm25.word_weights(words, idf)

    def text_search(self, collection, text, filters, limit) -> list[ScoredPoint]:
        """A BM25 without term frequencies: the summed IDF of the query words a chunk holds."""
        languages = self._languages(collection)
        words, idf = bm25.weigh_query(text, languages, lambda terms: self._idf(collection, terms))
        weights = bm25.word_weights(words, idf)
        scored = []
        for p in self._visible(collection, filters):
            terms = set(bm25.encode_document(p.text, languages)[0])
            score = sum(w for word, w in weights.items() if terms & set(words[word]))
            scored.append(ScoredPoint(p.id, score, p.payload))
        return sorted((s for s in scored if s.score > 0), key=lambda s: -s.score)[:limit]

    def field_values(self, collection: str, key: str, filters: SearchFilter) -> list[str]:
        if self.physical(collection) not in self.collections:
            return []
        found: set[str] = set()
        for point in self._visible(collection, filters):
            value: Any = point.payload
            for part in key.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            found.update(value if isinstance(value, list) else [value] if value else [])
        return sorted(found)

    def payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict]:
        points = self.collections[self.physical(collection)]["points"]
        return {i: points[i].payload for i in ids if i in points}

    def scroll_points(
        self, collection: str, offset: str | None = None, limit: int = 256
    ) -> tuple[list[IndexPoint], str | None]:
        """Pages in id order, as Qdrant scrolls; the offset is the first id of the next page."""
        c = self.collections.get(self.physical(collection))
        if c is None:
            return [], None
        ids = sorted(i for i in c["points"] if offset is None or i >= offset)
        return [c["points"][i] for i in ids[:limit]], ids[limit] if len(ids) > limit else None

    def close(self) -> None:
        self.closed = True

    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        return False  # one process: nobody waits for it

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _overlaps(doc: dict, pages: tuple[int, int]) -> bool:
    start, end = doc.get("page_start"), doc.get("page_end")
    return start is not None and end is not None and start <= pages[1] and end >= pages[0]


class MemoryAudit:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.correlation_id = "test-run"
        self.location = "memory"

    def record(self, event: str, **fields: Any) -> None:
        self.events.append({"event": event, **fields})

    def close(self) -> None:
        pass


class FakeDocumentText:
    """Stored page texts by file hash, as the conversion cache would hold them."""

    def __init__(
        self,
        documents: dict[str, dict[int | None, str]] | None = None,
        kinds: dict[str, dict[str, str]] | None = None,
    ) -> None:
        """``kinds``: per file hash, the kind of a block by its text (body text otherwise):
        {"caption": ...} as a conversion labels figure captions."""
        self.documents = documents or {}
        self.kinds = kinds or {}

    def pages(self, sha256: str) -> dict[int | None, str] | None:
        return self.documents.get(sha256)

    def page_blocks(self, sha256: str) -> dict[int | None, list[tuple[str, str]]] | None:
        pages = self.documents.get(sha256)
        if pages is None:
            return None
        kinds = self.kinds.get(sha256, {})
        return {
            page: [(kinds.get(line, "text"), line) for line in text.split("\n") if line]
            for page, text in pages.items()
        }


class FakeRelations:
    """A fixed relation graph, as the library's relations would give it."""

    def __init__(self, graph: RelationGraph | None = None, error: Exception | None = None) -> None:
        self._graph = graph or RelationGraph()
        self.error = error
        self.documents: list[DocumentFacts] = []
        sources = ("references.json",)
        self.sources = sources

    def graph(self) -> RelationGraph:
        if self.error is not None:
            raise self.error
        return self._graph

    def with_documents(self, documents: Sequence[DocumentFacts]) -> RelationGraph:
        self.documents = list(documents)
        return self.graph()

    def problems(self) -> list[str]:
        return []
