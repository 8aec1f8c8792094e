"""The graph: a library's relations applied. Versions grouped into works, each work's version
of record, and the flags every result of a citekey carries; the user's relations over the
inferred ones; relations going round in a circle set aside (``cycles``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from citeloom.domain.models import Reference
from citeloom.domain.relations.cycles import find_cycles, on_cycles
from citeloom.domain.relations.entries import default_similarity
from citeloom.domain.relations.inference import add_documents
from citeloom.domain.relations.model import (
    VERSION_KINDS,
    DocumentFacts,
    Relation,
    Similarity,
    in_order,
)


def relation_graph(inferred: Sequence[Relation], declared: Sequence[Relation]) -> RelationGraph:
    """The user's relations over the inferred ones. A declared relation between two entries
    replaces what was inferred between them of the same family (versions, or the same kind
    of notice); ``distinct`` removes every version relation between its two entries."""

    def family(r: Relation) -> str:
        return "versions" if r.kind in VERSION_KINDS | {"distinct"} else r.kind

    overridden = {(d.pair, family(d)) for d in declared}
    kept = [r for r in inferred if (r.pair, family(r)) not in overridden]
    relations = [*kept, *(d for d in declared if d.kind != "distinct")]
    pairs = {d.pair for d in declared if family(d) == "versions"}
    return RelationGraph(in_order(relations), pairs)


@dataclass(frozen=True)
class VersionRef:
    citekey: str
    record: bool  # this one is the work's version of record


@dataclass(frozen=True)
class Related:
    citekey: str
    relation: str  # "erratum_of", "has_erratum", "reply_to", "has_reply", "retraction_notice"


@dataclass(frozen=True)
class Conflict:
    citekey: str
    reason: str


@dataclass(frozen=True)
class WorkFlags:
    """What a result says about its paper's other versions, supersession, retraction and
    conflicts (certain relations only). Empty for a paper with none, a note or no citekey."""

    citekey: str | None = None
    versions: tuple[VersionRef, ...] = ()
    record: str | None = None  # the work's version of record, when known (may be citekey)
    superseded_by: str | None = None
    superseded_why: str | None = None
    retracted: bool = False
    retraction: str | None = None  # the evidence
    conflicts_with: tuple[Conflict, ...] = ()
    related: tuple[Related, ...] = ()
    preprint_pdf: str | None = None  # the stored PDF is a preprint of this entry: why

    @property
    def empty(self) -> bool:
        return not (
            self.versions
            or self.superseded_by
            or self.retracted
            or self.conflicts_with
            or self.related
            or self.preprint_pdf
        )


NO_FLAGS = WorkFlags()


class RelationGraph:
    """The relations of a library, applied: versions grouped into works, each work's version
    of record, and the flags of any citekey. Only certain relations are applied."""

    def __init__(
        self,
        relations: Iterable[Relation] = (),
        declared_pairs: Iterable[frozenset[str]] = (),
        preprints: Iterable[str] = (),
    ) -> None:
        self.relations = tuple(relations)
        self.declared_pairs = frozenset(declared_pairs)
        # entries that are preprints themselves: their PDFs carrying arXiv's stamp are no news
        self.preprints = frozenset(preprints)
        certain = [r for r in self.relations if r.certainty == "certain"]
        # relations going round in a circle are set aside, not applied; a retraction on one
        # keeps applying without its notice (a missed retraction costs more than a wrong one)
        self.cycles = tuple(find_cycles(certain))
        self.set_aside = on_cycles(self.cycles)
        certain = [
            r if r not in self.set_aside else replace(r, target=None)
            for r in certain
            if r not in self.set_aside or r.kind == "retracted"
        ]
        self._certain = certain
        # the certain relations touching each citekey: flags look up a handful, not all
        self._touching: dict[str, list[Relation]] = {}
        for r in certain:
            for key in r.pair:
                self._touching.setdefault(key, []).append(r)
        parent: dict[str, str] = {}

        def root(key: str) -> str:
            parent.setdefault(key, key)
            while parent[key] != key:
                parent[key] = parent[parent[key]]
                key = parent[key]
            return key

        for r in certain:
            if r.kind == "version_of" and r.target:
                parent[root(r.source)] = root(r.target)
        self._works: dict[str, list[str]] = {}
        for key in list(parent):
            self._works.setdefault(root(key), []).append(key)
        self._work_of = {k: w for w, members in self._works.items() for k in members}
        sources = {r.source for r in certain if r.kind == "version_of"}
        self._record: dict[str, str | None] = {}
        for work, members in self._works.items():
            tops = [m for m in members if m not in sources]
            self._record[work] = tops[0] if len(tops) == 1 else None

    def __len__(self) -> int:
        return len(self.relations)

    @property
    def certain(self) -> list[Relation]:
        return list(self._certain)

    @property
    def possible(self) -> list[Relation]:
        return [r for r in self.relations if r.certainty == "possible"]

    def work(self, citekey: str | None) -> str | None:
        """An id of the work this citekey is a version of (None: no other version known)."""
        return self._work_of.get(citekey) if citekey else None

    def record(self, citekey: str | None) -> str | None:
        """The version of record of the citekey's work, when the library holds it."""
        work = self.work(citekey)
        return self._record.get(work) if work else None

    def with_documents(
        self,
        references: Iterable[Reference],
        documents: Sequence[DocumentFacts],
        similarity: Similarity = default_similarity,
    ) -> RelationGraph:
        """This graph with the relations the documents' facts add (what ingest recorded of
        each PDF); a pair the user declared keeps what the user said."""
        if not any(d.also_fits for d in documents):
            return self
        relations = add_documents(
            self.relations, self.declared_pairs, references, documents, similarity
        )
        return RelationGraph(relations, self.declared_pairs, self.preprints)

    def with_stages(self, preprints: Iterable[str]) -> RelationGraph:
        """This graph knowing which entries are preprints themselves."""
        return RelationGraph(self.relations, self.declared_pairs, preprints)

    def flags(self, citekey: str | None, arxiv_stamp: str | None = None) -> WorkFlags:
        """What results of this citekey carry; ``arxiv_stamp``: the one its stored PDF
        carries, if any (a PDF with arXiv's stamp is the arXiv copy, not the version of
        record, unless the entry is a preprint itself)."""
        if not citekey:
            return NO_FLAGS
        preprint_pdf = None
        if arxiv_stamp and citekey not in self.preprints:
            preprint_pdf = f"its page 1 carries arXiv's stamp arXiv:{arxiv_stamp}"
        record = self.record(citekey)
        work = self.work(citekey)
        versions = tuple(
            VersionRef(k, k == record)
            for k in sorted(self._works.get(work, ()) if work else ())
            if k != citekey
        )
        superseded_by = why = None
        touching = self._touching.get(citekey, [])
        for r in touching:
            if r.kind == "supersedes" and r.target == citekey:
                superseded_by, why = r.source, r.evidence
        if superseded_by is None and record is not None and record != citekey:
            superseded_by, why = record, self._version_evidence(citekey, record)
        retracted = [r for r in touching if r.kind == "retracted" and r.source == citekey]
        conflicts = tuple(
            Conflict(r.target if r.source == citekey else r.source, r.evidence)
            for r in touching
            if r.kind == "conflicts_with" and r.target
        )
        related = tuple(self._related(citekey))
        return WorkFlags(
            citekey=citekey,
            versions=versions,
            record=record,
            superseded_by=superseded_by,
            superseded_why=why,
            retracted=bool(retracted),
            retraction="; ".join(r.evidence for r in retracted) or None,
            conflicts_with=conflicts,
            related=related,
            preprint_pdf=preprint_pdf,
        )

    def _version_evidence(self, citekey: str, record: str) -> str | None:
        for r in self._touching.get(citekey, []):
            if r.kind == "version_of" and r.pair == frozenset((citekey, record)):
                return r.evidence
        return None

    def _related(self, citekey: str) -> Iterator[Related]:
        names = {"erratum_of": "has_erratum", "reply_to": "has_reply"}
        for r in self._touching.get(citekey, []):
            if r.kind in names and r.target:
                if r.source == citekey:
                    yield Related(r.target, r.kind)
                elif r.target == citekey:
                    yield Related(r.source, names[r.kind])
            if r.kind == "retracted" and r.source == citekey and r.target:
                yield Related(r.target, "retraction_notice")
