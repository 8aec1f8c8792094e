"""Inference: every relation the library's entries (and the facts ingest recorded of each
document) support, each with its evidence and certainty (``domain.relations`` explains which
is certain and which only possible)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from citeloom.domain.matching import find_dois
from citeloom.domain.models import Reference
from citeloom.domain.relations.entries import (
    PREPRINT,
    authors_phrase,
    default_similarity,
    families,
    same_authors,
    scholarly,
    stage,
    stage_words,
    title_key,
)
from citeloom.domain.relations.model import (
    VERSION_KINDS,
    Certainty,
    DocumentFacts,
    Origin,
    Relation,
    RelationKind,
    Similarity,
    in_order,
)
from citeloom.domain.relations.notices import ieee_retracted, notice_of, retracted_title
from citeloom.domain.text import trim

# Bumped when inference changes: cached relations of an older version are computed again.
INFERENCE_VERSION = 1
# Titles at least this alike, by the same first author, are a possible version.
POSSIBLE_TITLE = 0.85
# A document's page 1 fits another entry this well: a version by the document's word.
DOCUMENT_TITLE = 0.9
DOCUMENT_TITLE_CERTAIN = 0.95


@dataclass
class _Builder:
    """The relations found so far, one per (kind, from, to), and what later rules must know:
    which entries are notices, which pairs the user declared."""

    refs: dict[str, Reference]
    similarity: Similarity
    found: dict[tuple[str, str, str | None], Relation] = field(default_factory=dict)
    notices: set[str] = field(default_factory=set)  # entries that are notices of another
    # pairs the user declared a version relation on (or distinct): nothing inferred there
    declared: set[frozenset[str]] = field(default_factory=set)

    def add(self, relation: Relation) -> None:
        """Keep one relation per (kind, from, to): the surer, with every piece of evidence."""
        if relation.kind in VERSION_KINDS and relation.pair in self.declared:
            return
        key = (relation.kind, relation.source, relation.target)
        held = self.found.get(key)
        if held is None or (held.certainty, relation.certainty) == ("possible", "certain"):
            self.found[key] = relation  # what is certain needs no "possible" beside it
        elif held.certainty == relation.certainty and relation.evidence not in held.evidence:
            self.found[key] = replace(held, evidence=f"{held.evidence}; {relation.evidence}")

    def versions(
        self, a: Reference, b: Reference, evidence: str, certainty: Certainty, origin: Origin
    ) -> None:
        """``a`` and ``b`` are versions of one work: the relation points at the one nearer
        the record (a journal article over a conference paper over a preprint; a later arXiv
        version or edition over an earlier one; else the later year)."""
        older, newer = sorted((a, b), key=_record_order)
        self.add(Relation("version_of", older.citekey, newer.citekey, evidence, certainty, origin))
        later = _later_version(older, newer)
        if later is not None and certainty == "certain":
            self.add(Relation("supersedes", newer.citekey, older.citekey, later, certainty, origin))


def _record_order(ref: Reference) -> tuple[int, int, int, int, str]:
    return (
        stage(ref),
        ref.arxiv_version or 0,
        _edition(ref) or 0,
        ref.year if ref.year is not None else -10_000,
        ref.citekey,
    )


def _edition(ref: Reference) -> int | None:
    match = re.search(r"\d+", ref.edition or "")
    if match:
        return int(match[0])
    words = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
    return next((n for w, n in words.items() if w in (ref.edition or "").lower()), None)


def _later_version(older: Reference, newer: Reference) -> str | None:
    """Why ``newer`` supersedes ``older``, when one is a later arXiv version or edition."""
    if older.arxiv_version and newer.arxiv_version and newer.arxiv_version > older.arxiv_version:
        return f"arXiv v{newer.arxiv_version} after v{older.arxiv_version}"
    eo, en = _edition(older), _edition(newer)
    if eo and en and en > eo:
        return f"edition {newer.edition} after edition {older.edition}"
    return None


def infer_relations(
    references: Iterable[Reference],
    similarity: Similarity = default_similarity,
    documents: Sequence[DocumentFacts] = (),
) -> list[Relation]:
    """Every relation the library (and the documents' facts) supports, sorted."""
    refs: dict[str, Reference] = {}
    for ref in references:
        refs.setdefault(ref.citekey, ref)
    build = _Builder(refs, similarity)
    by_title: dict[str, list[Reference]] = {}
    for ref in refs.values():
        if ref.title:
            by_title.setdefault(title_key(ref.title), []).append(ref)
    _identifiers(build)
    _notices(build, by_title)
    _titles(build)
    _documents(build, documents)
    return in_order(build.found.values())


def add_documents(
    relations: Iterable[Relation],
    declared_pairs: Iterable[frozenset[str]],
    references: Iterable[Reference],
    documents: Sequence[DocumentFacts],
    similarity: Similarity = default_similarity,
) -> list[Relation]:
    """``relations`` with those the documents' facts add (what ingest recorded of each PDF),
    sorted; a pair the user declared keeps what the user said."""
    relations = list(relations)
    build = _Builder({r.citekey: r for r in references}, similarity)
    build.declared = set(declared_pairs)
    build.notices = {r.source for r in relations if r.kind in ("erratum_of", "reply_to")}
    for r in relations:
        build.found[(r.kind, r.source, r.target)] = r
    _documents(build, documents)
    return in_order(build.found.values())


def _identifiers(build: _Builder) -> None:
    """The same DOI or arXiv id on two entries: one publication (or versions of one)."""
    for name, key in (("DOI", lambda r: r.doi), ("arXiv id", lambda r: r.arxiv_id)):
        groups: dict[str, list[Reference]] = {}
        for ref in build.refs.values():
            if value := key(ref):
                groups.setdefault(value, []).append(ref)
        for value, members in groups.items():
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    alike = build.similarity(title_key(a.title), title_key(b.title))
                    if notice_of(a.title) or notice_of(b.title):
                        continue  # a notice sharing its paper's DOI is not a version of it
                    evidence = f"both entries give {name} {value}"
                    if alike >= 0.6:
                        build.versions(a, b, evidence, "certain", "library")
                    else:  # a chapter carrying its book's DOI, a mistyped identifier
                        build.versions(
                            a, b, f"{evidence}, but their titles differ", "possible", "library"
                        )
    # a preprint whose note names the DOI of another entry (Zotero's "Published as ...")
    by_doi = {r.doi: r for r in build.refs.values() if r.doi}
    for ref in build.refs.values():
        if not ref.note or stage(ref) != PREPRINT:
            continue
        for doi in find_dois(ref.note):
            other = by_doi.get(doi)
            if other is not None and other.citekey != ref.citekey and stage(other) > PREPRINT:
                build.versions(
                    ref, other, f"{ref.citekey}'s note names the DOI {doi}", "certain", "library"
                )


def _notices(build: _Builder, by_title: dict[str, list[Reference]]) -> None:
    """Errata, replies, retraction notices and retracted entries, from titles and status."""
    words = {"erratum_of": "a correction", "reply_to": "a reply or comment"}
    for ref in build.refs.values():
        if ref.status and "retract" in ref.status.lower():
            build.add(Relation("retracted", ref.citekey, None, f"status: {ref.status}"))
        if (marked := retracted_title(ref.title)) is not None:
            mark, plain = marked
            build.notices.add(ref.citekey)
            build.add(Relation("retracted", ref.citekey, None, f"its title is marked {mark!r}"))
            for other in by_title.get(title_key(plain), []):
                if other.citekey != ref.citekey and same_authors(ref, other):
                    evidence = f"the library holds it again as @{ref.citekey}, marked {mark!r}"
                    build.add(Relation("retracted", other.citekey, ref.citekey, evidence))
            continue
        notice = notice_of(ref.title)
        if notice is None:
            continue
        papers = [r for r in by_title.get(title_key(notice.title), []) if r.citekey != ref.citekey]
        if not notice.strong:
            continue  # "Response to drought in maize": an ordinary title
        if len(papers) > 1 and all(same_authors(papers[0], p) for p in papers[1:]):
            # versions of one work under one title: the notice is about the version of record
            papers = [max(papers, key=_record_order)]
        build.notices.add(ref.citekey)
        if len(papers) == 1:
            paper = papers[0]
            evidence = f"its title {trim(ref.title, 100)!r} names @{paper.citekey}"
            if notice.kind == "retraction":
                evidence = f"retraction notice @{ref.citekey}: {evidence}"
                build.add(Relation("retracted", paper.citekey, ref.citekey, evidence))
            else:
                kind: RelationKind = "erratum_of" if notice.kind == "erratum_of" else "reply_to"
                build.add(Relation(kind, ref.citekey, paper.citekey, evidence))
        elif not papers and notice.kind == "retraction":
            if ieee_retracted(ref.title):
                evidence = "its title begins 'Notice of Retraction' (IEEE's mark)"
                build.add(Relation("retracted", ref.citekey, None, evidence))
        elif not papers:
            # no entry has that exact title: a close one is possible, never certain
            close = _closest(build, title_key(notice.title), ref)
            if close is not None:
                kind = "erratum_of" if notice.kind == "erratum_of" else "reply_to"
                build.add(
                    Relation(
                        kind,
                        ref.citekey,
                        close.citekey,
                        f"its title {trim(ref.title, 100)!r} reads as {words[notice.kind]} of a "
                        f"title like @{close.citekey}'s",
                        "possible",
                    )
                )
        # several entries with that very title: which one is meant is not known


def _closest(build: _Builder, key: str, notice: Reference) -> Reference | None:
    best, score = None, 0.0
    for ref in build.refs.values():
        if ref.citekey == notice.citekey or not ref.title:
            continue
        alike = build.similarity(key, title_key(ref.title))
        if alike > score:
            best, score = ref, alike
    return best if best is not None and score >= 0.9 else None


def _titles(build: _Builder) -> None:
    """Entries by the same authors with the same or similar titles."""
    blocks: dict[str, list[Reference]] = {}
    for ref in build.refs.values():
        if scholarly(ref) and (names := families(ref)) and ref.citekey not in build.notices:
            blocks.setdefault(names[0], []).append(ref)
    for members in blocks.values():
        for i, a in enumerate(members):
            ka = title_key(a.title)
            for b in members[i + 1 :]:
                kb = title_key(b.title)
                if ka == kb:
                    _same_title(build, a, b)
                elif _alike(build, ka, kb):
                    score = build.similarity(ka, kb)
                    build.versions(
                        a,
                        b,
                        f"similar titles ({score:.2f}) by the same first author "
                        f"({a.family_names[0]}), {a.year or 'no year'} and {b.year or 'no year'}",
                        "possible",
                        "library",
                    )


def _alike(build: _Builder, a: str, b: str) -> bool:
    shorter, longer = sorted((a, b), key=len)
    if len(shorter.split()) >= 5 and longer.startswith(shorter + " "):
        return True  # "Title" and "Title in the strong driving regime"
    if min(len(a), len(b)) < 0.6 * max(len(a), len(b)):
        return False
    return build.similarity(a, b) >= POSSIBLE_TITLE


def _same_title(build: _Builder, a: Reference, b: Reference) -> None:
    if not same_authors(a, b):
        return  # the same title by other people is another paper
    who = authors_phrase(a, b)
    sa, sb = stage(a), stage(b)
    editions = _edition(a), _edition(b)
    if all(editions) and editions[0] != editions[1]:
        evidence = f"the same title and {who}, editions {a.edition} and {b.edition}"
        build.versions(a, b, evidence, "certain", "library")
    elif sa != sb:
        low, high = (a, b) if sa < sb else (b, a)
        build.versions(
            a,
            b,
            f"the same title and {who}: @{low.citekey} is {stage_words(low)}, "
            f"@{high.citekey} {stage_words(high)}",
            "certain",
            "library",
        )
    else:
        build.versions(
            a,
            b,
            f"the same title and {who}, both {stage_words(a)} ({a.year or 'no year'}, "
            f"{b.year or 'no year'}): a duplicate entry, an erratum or a second part?",
            "possible",
            "library",
        )


def _documents(build: _Builder, documents: Sequence[DocumentFacts]) -> None:
    """A stored PDF matched to one entry whose page 1 prints another entry's title and
    authors: the two entries are versions of one work, by the document's word."""
    for doc in documents:
        own = build.refs.get(doc.citekey)
        if own is None:
            continue
        name = doc.path.rsplit("/", 1)[-1]
        for fit in doc.also_fits:
            other = build.refs.get(fit.citekey)
            if other is None or other.citekey == own.citekey or fit.score < DOCUMENT_TITLE:
                continue
            if fit.authors < 0.5 or other.citekey in build.notices:
                continue
            evidence = (
                f"{name} (@{own.citekey}) prints the title of @{other.citekey} "
                f"({fit.score:.2f}) and {fit.authors:.0%} of its authors"
            )
            if doc.arxiv_stamp:
                evidence += f", and arXiv's stamp {doc.arxiv_stamp}"
            preprint = stage(own) < stage(other) or (doc.arxiv_stamp and stage(other) > PREPRINT)
            dated = own.year is None or other.year is None or own.year <= other.year
            sure = fit.score >= DOCUMENT_TITLE_CERTAIN and preprint and dated
            build.versions(own, other, evidence, "certain" if sure else "possible", "document")
