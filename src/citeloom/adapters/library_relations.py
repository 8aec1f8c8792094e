"""The relations of a project's library, computed from its references file and its relations
file, and kept in ``cache_dir/relations`` under the hash of both (and of the inference
rules): a changed references file is a new key, so relations are always those of the files
as they are now, and an unchanged library costs one hash and one small JSON read; a process
that keeps a ``RelationsMemo`` (a server) pays them once per change of the library.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citeloom.adapters.cache_files import write_atomically
from citeloom.adapters.csl_references import load_references, title_score
from citeloom.adapters.relations_file import read_relations
from citeloom.adapters.relations_memo import RelationsMemo
from citeloom.domain.errors import ReferencesError
from citeloom.domain.models import Reference
from citeloom.domain.relations import (
    INFERENCE_VERSION,
    PREPRINT,
    Cycle,
    DocumentFacts,
    Relation,
    RelationGraph,
    infer_relations,
    relation_graph,
    stage,
)

FORMAT = "citeloom-relations"
log = logging.getLogger(__name__)


class LibraryRelations:
    def __init__(
        self,
        references: Path | None,
        relations: Path | None = None,
        cache_dir: Path | None = None,
        memo: RelationsMemo | None = None,
    ) -> None:
        """``references`` None: a library read from Zotero alone; only the relations file
        applies (relations are inferred from a CSL-JSON export). ``memo``: the graphs this
        process built already (its own when not given)."""
        self.references_path = references
        self.relations_path = relations
        self.library_cache_dir = cache_dir
        self.cache_dir = cache_dir / "relations" if cache_dir is not None else None
        self._built: tuple[RelationGraph, list[str]] | None = None
        self._refs: list[Reference] | None = None
        self._memo = memo if memo is not None else RelationsMemo()

    @property
    def sources(self) -> tuple[str, ...]:
        paths = (self.references_path, self.relations_path)
        return tuple(str(p) for p in paths if p is not None)

    def graph(self) -> RelationGraph:
        return self._build()[0]

    def problems(self) -> list[str]:
        graph, problems = self._build()
        return [*problems, *(self._cycle_line(c) for c in graph.cycles)]

    def _cycle_line(self, cycle: Cycle) -> str:
        """A cycle, named with the file its declared relations come from."""
        declared = any(r.origin == "file" for r in cycle.relations)
        where = self.relations_path if declared else self.references_path
        return (
            f"{where or 'the library'}: {cycle.describe()}: they cannot all hold, so none of "
            "them is applied; remove or correct the wrong one (citeloom inspect --relations "
            "shows the evidence of each)"
        )

    def with_documents(self, documents: Sequence[DocumentFacts]) -> RelationGraph:
        graph = self.graph()
        if not any(d.also_fits for d in documents):
            return graph
        return graph.with_documents(self._references(), documents, title_score)

    def _references(self) -> list[Reference]:
        if self._refs is None:
            path = self.references_path
            self._refs = [] if path is None else load_references(path, self.library_cache_dir)
        return self._refs

    def _build(self) -> tuple[RelationGraph, list[str]]:
        """The graph of the files as they are; computed once per key (and per memo)."""
        if self._built is not None:
            return self._built
        declared, declared_bytes = (
            read_relations(self.relations_path) if self.relations_path else ([], b"")
        )
        try:
            if self.references_path is None:
                raise FileNotFoundError("no references file")
            references = self._memo.digest(self.references_path)
        except OSError:
            # no library to infer from (validate and ingest say so): the declared relations
            # still apply, query and answer work as before
            self._built = (relation_graph([], declared), [])
            for cycle in self._built[0].cycles:
                log.warning("relations not applied: %s", self._cycle_line(cycle))
            return self._built
        parts = (
            str(INFERENCE_VERSION).encode(),
            references,
            hashlib.sha256(declared_bytes).digest(),
        )
        key = hashlib.sha256(b"\0".join(parts)).hexdigest()[:32]
        remembered = self._memo.graphs.get(key)
        if remembered is not None:
            self._built = remembered
            return self._built
        built = self._cached(key) or self._infer(key, declared)
        for cycle in built[0].cycles:  # once per library and memo: a query says it too
            log.warning("relations not applied: %s", self._cycle_line(cycle))
        self._memo.graphs.put(key, built)
        self._built = built
        return built

    def _infer(self, key: str, declared: list[Relation]) -> tuple[RelationGraph, list[str]]:
        try:
            refs = self._references()
        except ReferencesError as error:  # a malformed library: no inferred relations
            log.warning("relations not inferred: %s", error)
            return relation_graph([], declared), []
        known = {r.citekey for r in refs}
        usable, problems = [], []
        for relation in declared:
            unknown = [k for k in (relation.source, relation.target) if k and k not in known]
            if unknown:
                problems.append(
                    f"{self.relations_path}: {relation.describe()}: no entry {unknown[0]!r} in "
                    f"{self.references_path.name if self.references_path else 'the library'}; "
                    "fix the citekey or remove the relation"
                )
            else:
                usable.append(relation)
        inferred = infer_relations(refs, title_score)
        preprints = sorted(r.citekey for r in refs if stage(r) == PREPRINT)
        graph = relation_graph(inferred, usable)
        graph = graph.with_stages(preprints)
        self._store(key, graph, problems)
        return graph, problems

    def _cached(self, key: str) -> tuple[RelationGraph, list[str]] | None:
        if self.cache_dir is None:
            return None
        try:
            data: dict[str, Any] = json.loads((self.cache_dir / f"{key}.json").read_bytes())
            if data.get("format") != FORMAT:
                return None
            graph = RelationGraph(
                [Relation.from_json(r) for r in data["relations"]],
                [frozenset(p) for p in data["declared_pairs"]],
            ).with_stages(data["preprints"])
            return graph, [str(p) for p in data["problems"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, or damaged: computed again

    def _store(self, key: str, graph: RelationGraph, problems: list[str]) -> None:
        if self.cache_dir is None:
            return
        data = {
            "format": FORMAT,
            "version": INFERENCE_VERSION,
            "relations": [r.to_json() for r in graph.relations],
            "declared_pairs": [sorted(p) for p in graph.declared_pairs],
            "preprints": sorted(graph.preprints),
            "problems": problems,
        }
        try:
            encoded = json.dumps(data, ensure_ascii=False).encode()
            write_atomically(self.cache_dir / f"{key}.json", encoded)
        except OSError as error:  # a cache that cannot be written only costs time
            log.debug("relations not cached: %s", error)
