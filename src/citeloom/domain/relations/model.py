"""A relation between two library entries, and the facts ingest records of a document that
relations are inferred from: the vocabulary every other module of ``domain.relations`` shares."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from citeloom.domain.models import Resemblance

RelationKind = Literal[
    "version_of",  # from is a version of the same work as to; to is nearer the record
    "supersedes",  # from supersedes to (a later version or edition, or the user says so)
    "retracted",  # from is retracted (to: the retraction notice in the library, if any)
    "conflicts_with",  # from and to disagree (declared by the user)
    "erratum_of",  # from corrects to (an erratum, corrigendum, correction)
    "reply_to",  # from replies to or comments on to
    "distinct",  # from and to are not the same work (declared: silences a possible one)
]
KINDS: tuple[RelationKind, ...] = (
    "version_of",
    "supersedes",
    "retracted",
    "conflicts_with",
    "erratum_of",
    "reply_to",
    "distinct",
)
# The kinds that join versions of one work: a pair the user declared one of (or ``distinct``)
# keeps what the user said, whatever inference finds.
VERSION_KINDS = frozenset({"version_of", "supersedes"})
Certainty = Literal["certain", "possible"]
Origin = Literal["library", "document", "file"]
# How alike two folded titles are, in [0, 1]: passed in, so the adapters can use rapidfuzz.
Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class Relation:
    """One relation, from one citekey to another (or to none: a retraction without notice)."""

    kind: RelationKind
    source: str  # "from"
    target: str | None  # "to"
    evidence: str  # what it rests on, in words
    certainty: Certainty = "certain"
    origin: Origin = "library"

    @property
    def pair(self) -> frozenset[str]:
        return frozenset(k for k in (self.source, self.target) if k)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "from": self.source,
            "to": self.target,
            "evidence": self.evidence,
            "certainty": self.certainty,
            "origin": self.origin,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Relation:
        kind = data["kind"]
        if kind not in KINDS:
            raise ValueError(f"unknown relation kind {kind!r}")
        return cls(
            kind,
            str(data["from"]),
            None if data.get("to") is None else str(data["to"]),
            str(data["evidence"]),
            "possible" if data.get("certainty") == "possible" else "certain",
            data["origin"] if data.get("origin") in ("document", "file") else "library",
        )

    def describe(self) -> str:
        """``@a version_of @b``: the relation in one short phrase."""
        return relation_phrase(self.source, self.kind, self.target)


def relation_phrase(source: str, kind: str, target: str | None) -> str:
    """``@a version_of @b``, ``@a retracted``: a relation in one short phrase."""
    if target is None:
        return f"@{source} {kind}"
    return f"@{source} {kind} @{target}"


def in_order(relations: Iterable[Relation]) -> list[Relation]:
    """Certain relations first, then by citekey and kind: the order every list of them keeps,
    so a cached graph, a report and a test read the same sequence."""
    return sorted(
        relations, key=lambda r: (r.certainty != "certain", r.source, r.kind, r.target or "")
    )


@dataclass(frozen=True)
class DocumentFacts:
    """What ingest recorded of one stored document: the entry it was matched to, the arXiv
    stamp it carries (``2501.10120v1``: arXiv's watermark, never printed on a version of
    record) and the other entries whose title and authors its page 1 also prints."""

    doc_id: str
    path: str
    citekey: str
    arxiv_stamp: str | None = None
    also_fits: tuple[Resemblance, ...] = ()
