"""The query use case: best passages of a project with citation-ready labels.

Dense and BM25 candidates are fetched separately (both filtered to the project) and fused by a
pure function from ``domain.fusion``, so every index adapter ranks the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.fusion import FUSIONS
from citeloom.domain.records import Passage, passage_from_payload
from citeloom.ports import Embedder, Index, SearchFilter


@dataclass
class QueryReport:
    query: str
    project: str
    results: list[Passage] = field(default_factory=list)
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "project": self.project,
            "results": [p.to_json() for p in self.results],
        }
        if self.note:
            out["note"] = self.note
        return out


class QueryService:
    def __init__(
        self,
        *,
        project: str,
        collection: str,
        embedder: Embedder,
        index: Index,
        hybrid: bool = True,
        fusion: str = "rrf",
        weights: Sequence[float] = (1.0, 1.0),
        candidates: int = 50,
    ) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r}; choose one of {sorted(FUSIONS)}")
        self.project = project
        self.collection = collection
        self.embedder = embedder
        self.index = index
        self.hybrid = hybrid
        self.fuse = FUSIONS[fusion]
        self.weights = list(weights)
        self.candidates = candidates

    def search(self, text: str, top_k: int = 6) -> QueryReport:
        report = QueryReport(query=text, project=self.project)
        info = self.index.collection_info(self.collection)
        if info is None or info.points == 0:
            report.note = (
                f"project '{self.project}' has nothing indexed yet (collection "
                f"'{self.collection}'). Run: citeloom ingest --project {self.project}"
            )
            return report
        # A query embedded by another model than the stored vectors would rank noise.
        self.index.check_model(self.collection, self.embedder.model_id)
        filters = SearchFilter(project=self.project)
        limit = max(self.candidates, top_k)
        dense = self.index.dense_search(
            self.collection, self.embedder.embed_query(text), filters, limit
        )
        if self.hybrid:
            sparse = self.index.text_search(self.collection, text, filters, limit)
            ranked = self.fuse([dense, sparse], self.weights)
        else:
            ranked = dense
        top = ranked[:top_k]
        missing = [p.id for p in top if p.payload is None]
        payloads = self.index.payloads(self.collection, missing) if missing else {}
        for rank, point in enumerate(top, start=1):
            payload = point.payload if point.payload is not None else payloads.get(point.id, {})
            report.results.append(passage_from_payload(rank, point.score, point.id, payload))
        return report
