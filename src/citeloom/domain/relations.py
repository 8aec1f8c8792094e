"""Relations between library entries: versions of one work, supersession, retractions,
corrections and replies, inferred from the library and the documents, or declared by the user.

A real library holds the same work more than once (the arXiv preprint and the journal
article, a report and the paper, a conference paper and its journal version, two editions),
and a paper beside its erratum, its reply or its retraction. Every relation names its
evidence and says how sure it is:

- ``certain``: an identifier links the entries (the same DOI or arXiv id), a notice names
  its paper ("Erratum to: <title>"), the entry says so (``RETRACTED:``, ``status``), the
  same title and authors come as a preprint, report or conference paper and as the journal
  article (or as two editions), or the user declared it. Certain relations are applied:
  results are flagged, the version of record is preferred between near-tied passages,
  ``check`` names the version to cite.
- ``possible``: titles that are merely alike (same first author, similar words), two entries
  with the same title and authors of the same kind, a DOI shared by entries whose titles
  differ. Listed by ``citeloom inspect --relations``, never applied: the user confirms one in
  the relations file (``version_of``) or silences it (``distinct``).

Pure functions of the references (and the facts ingest recorded of each document); the
title similarity is passed in, so the adapters can use rapidfuzz as matching does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import Any, Literal

from citeloom.domain.matching import find_dois
from citeloom.domain.models import Reference, Resemblance
from citeloom.domain.relation_cycles import find_cycles, on_cycles
from citeloom.domain.text import fold_for_match, trim

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
Certainty = Literal["certain", "possible"]
Origin = Literal["library", "document", "file"]

# Bumped when inference changes: cached relations of an older version are computed again.
INFERENCE_VERSION = 1
# Titles at least this alike, by the same first author, are a possible version.
POSSIBLE_TITLE = 0.85
# A document's page 1 fits another entry this well: a version by the document's word.
DOCUMENT_TITLE = 0.9
DOCUMENT_TITLE_CERTAIN = 0.95
# Passages of two versions of one work this close in score (relative) are near-tied.
RECORD_TIE = 0.03


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
        if self.target is None:
            return f"@{self.source} {self.kind}"
        return f"@{self.source} {self.kind} @{self.target}"


# ---------------------------------------------------------------------- publication stages
# How near an entry is to a version of record: a preprint or report < a conference paper,
# chapter or book < a journal article.
PREPRINT, BETWEEN, JOURNAL = 0, 1, 2
_REPOSITORIES = re.compile(
    r"\b(arxiv|biorxiv|medrxiv|chemrxiv|ssrn|research ?square|preprints\.org|osf preprints|"
    r"psyarxiv|socarxiv|eartharxiv|techrxiv|engrxiv|hal|zenodo|authorea)\b",
    re.IGNORECASE,
)
_PREPRINT_GENRE = re.compile(
    r"preprint|working paper|discussion paper|technical report|tech\.? rep|submitted|"
    r"manuscript|e-?print",
    re.IGNORECASE,
)
# Kinds of entries that are scholarly works: titles of webpages, broadcasts or cases are
# never compared (two episodes share a title; two news items share half of one).
SCHOLARLY = frozenset(
    {
        "article",
        "article-journal",
        "paper-conference",
        "report",
        "chapter",
        "book",
        "thesis",
        "manuscript",
        "preprint",
        "speech",
    }
)
_STAGE_NAMES = {PREPRINT: "a preprint", BETWEEN: "", JOURNAL: "a journal article"}


def stage(ref: Reference) -> int:
    """How near the entry is to a version of record (``PREPRINT``, ``BETWEEN``, ``JOURNAL``)."""
    kind = (ref.csl_type or "").lower()
    container = ref.container_title or ""
    if _REPOSITORIES.search(container) or re.search(r"\bpre-?print\b", container, re.I):
        # Google Scholar's "arXiv preprint arXiv:1706.03762", typed article-journal
        return PREPRINT
    if kind == "article-journal":
        return JOURNAL
    if kind in ("preprint", "manuscript"):
        return PREPRINT
    where = " ".join(filter(None, (ref.archive, ref.publisher, ref.container_title)))
    genre = ref.genre or ""
    if kind == "report" or _PREPRINT_GENRE.search(genre):
        return PREPRINT
    if kind in ("article", "") and (ref.arxiv_id or _REPOSITORIES.search(where)):
        return PREPRINT
    return BETWEEN


def stage_words(ref: Reference) -> str:
    """What the entry is, as evidence says it: 'a preprint (publisher bioRxiv)'."""
    kind = (ref.csl_type or "").lower()
    level = stage(ref)
    if level == JOURNAL:
        return "a journal article"
    if kind == "paper-conference":
        return "a conference paper"
    if kind in ("book", "chapter", "thesis"):
        return f"a {kind}"
    if level == PREPRINT:
        why = next(
            (
                f"{name} {value}"
                for name, value in (
                    ("genre", ref.genre),
                    ("archive", ref.archive),
                    ("publisher", ref.publisher),
                    ("container", ref.container_title),
                )
                if value
            ),
            f"arXiv {ref.arxiv_id}" if ref.arxiv_id else f"type {kind or 'none'}",
        )
        noun = "a report" if kind == "report" else "a preprint"
        return f"{noun} ({why})"
    return f"type {kind or 'none'}"


# ---------------------------------------------------------------------- titles and names
_TAGS = re.compile(r"<[^>]+>")
_QUOTES = "\"'“”‘’«»"


def title_key(title: str) -> str:
    """A title folded for comparison, without markup (``<i>``) or surrounding quotes."""
    return fold_for_match(_TAGS.sub("", title).strip().strip(_QUOTES))


def _families(ref: Reference) -> tuple[str, ...]:
    return tuple(f for f in (fold_for_match(n) for n in ref.family_names) if f)


def same_authors(a: Reference, b: Reference) -> bool:
    """The same first author and at least half of the shorter author list in common."""
    fa, fb = _families(a), _families(b)
    if not fa or not fb or fa[0] != fb[0]:
        return False
    shared = len(set(fa) & set(fb))
    return shared * 2 >= min(len(set(fa)), len(set(fb)))


def _authors_phrase(a: Reference, b: Reference) -> str:
    shared = sorted(set(_families(a)) & set(_families(b)))
    return (
        "the same authors"
        if set(_families(a)) == set(_families(b))
        else (f"{len(shared)} shared authors, first author {a.family_names[0]}")
    )


def default_similarity(a: str, b: str) -> float:
    """Similarity of two folded titles in [0, 1] (the adapters pass rapidfuzz's instead)."""
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


# ---------------------------------------------------------------------- notices in titles
_RETRACTED = re.compile(r"^\s*(?:\[\s*retracted\s*\]|retracted(?:\s+article)?\s*:)\s*", re.I)
# Words that announce a notice about another paper. "Erratum to T", "Comment on T" and
# "Correction: T" are notices whatever follows; "Response to drought in maize" or "Correction
# to the Born approximation" are ordinary titles, so a weak word (reply, response,
# correction, commentary, discussion) counts only before a colon, a quoted title or "comment
# on". A notice names its paper by an exact title of the library, else nothing is certain.
_NOTICE_WORDS = {
    "erratum_of": r"errat(?:um|a)|corrigend(?:um|a)|(?:author\s+|publisher\s+)?correction|"
    r"addendum",
    "reply_to": r"reply|response|rejoinder|comments?|commentary|discussion",
    "retraction": r"retraction(?:\s+(?:note|notice|statement))?|notice\s+of\s+retraction",
}
_STRONG = re.compile(
    r"^(?:errat|corrigend|addend|retraction|notice|rejoinder|(?:author|publisher)\s)", re.I
)
_PREFIX = {
    kind: re.compile(
        rf"^\s*(?:a\s+)?(?P<word>{words})\b\s*(?P<link>(?:to|on|for|of)\b)?\s*"
        r"(?P<colon>[:.\-–—])?\s*"
        r"(?P<infix>(?:the\s+)?(?:comments?|reply|response)\s+(?:on|to|by)\b\s*:?\s*)?"
        r"(?:(?:the\s+)?(?:paper|article)\s*:?\s*)?(?P<title>.+)$",
        re.I,
    )
    for kind, words in _NOTICE_WORDS.items()
}
# "T: a reply to comments", "T - response to the comment"
_REPLY_SUFFIX = re.compile(
    r"^(?P<title>.+?)\s*[:\-–—]\s*(?:a\s+)?(?:reply|response|rejoinder)\s+to\s+(?:the\s+)?"
    r"(?:comments?|criticism|critics)(?:\s+.*)?$",
    re.I,
)


@dataclass(frozen=True)
class Notice:
    """What a title says it is about: a notice kind and the title of its paper."""

    kind: str  # "erratum_of", "reply_to" or "retraction"
    title: str  # the paper's title as the notice gives it
    strong: bool  # a notice whatever follows (else only when its title is in the library)


# Elsevier ends a notice's title with the paper's citation: "[Geoderma 310 (2018) 1-10]"
_CITED_AT_END = re.compile(r"\s*\[[^\[\]]*\d[^\[\]]*\]\s*$")


def notice_of(title: str) -> Notice | None:
    """The notice a title may announce ("Erratum to: T" -> erratum_of T)."""
    plain = _CITED_AT_END.sub("", _TAGS.sub("", title)).strip()
    if match := _REPLY_SUFFIX.match(plain):
        return Notice("reply_to", match["title"], True)
    for kind, pattern in _PREFIX.items():
        match = pattern.match(plain)
        if match is None or not match["title"].strip(_QUOTES + " "):
            continue
        word, link = match["word"].lower(), (match["link"] or "").lower()
        quoted = match["title"].lstrip()[:1] in _QUOTES
        # "Erratum to T", "Comment on T"; "Reply to: T", "Response to 'T'", "Reply to
        # comment on T"; never "Response to drought" or "Correction to the Born approximation"
        strong = (
            bool(match["colon"])
            or quoted
            or bool(match["infix"])
            or (bool(_STRONG.match(word)) and link in ("to", "on", "for", "of"))
            or (word in ("comment", "comments") and link == "on")
        )
        return Notice(kind, match["title"].strip().strip(_QUOTES), strong)
    return None


def retracted_title(title: str) -> tuple[str, str] | None:
    """The ``RETRACTED:`` mark of a title and the title without it, when it carries one."""
    plain = _TAGS.sub("", title)
    match = _RETRACTED.match(plain)
    return (match[0].strip(), plain[match.end() :].strip()) if match else None


# ---------------------------------------------------------------------- inference
Similarity = Callable[[str, str], float]


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


@dataclass
class _Builder:
    refs: dict[str, Reference]
    similarity: Similarity
    found: dict[tuple[str, str, str | None], Relation] = field(default_factory=dict)
    notices: set[str] = field(default_factory=set)  # entries that are notices of another
    # pairs the user declared a version relation on (or distinct): nothing inferred there
    declared: set[frozenset[str]] = field(default_factory=set)

    def add(self, relation: Relation) -> None:
        """Keep one relation per (kind, from, to): the surer, with every piece of evidence."""
        if relation.kind in _VERSION_KINDS and relation.pair in self.declared:
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
    return sorted(build.found.values(), key=_sort_key)


def _sort_key(r: Relation) -> tuple[int, str, str, str]:
    return (r.certainty != "certain", r.source, r.kind, r.target or "")


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
            if re.match(r"\s*notice\s+of\s+retraction", ref.title, re.I):
                # IEEE titles a retracted paper itself "Notice of Retraction: <title>"
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


def _scholarly(ref: Reference) -> bool:
    return (ref.csl_type or "article").lower() in SCHOLARLY and bool(ref.title)


def _titles(build: _Builder) -> None:
    """Entries by the same authors with the same or similar titles."""
    blocks: dict[str, list[Reference]] = {}
    for ref in build.refs.values():
        if _scholarly(ref) and (families := _families(ref)) and ref.citekey not in build.notices:
            blocks.setdefault(families[0], []).append(ref)
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
    who = _authors_phrase(a, b)
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
            in_order = own.year is None or other.year is None or own.year <= other.year
            sure = fit.score >= DOCUMENT_TITLE_CERTAIN and preprint and in_order
            build.versions(own, other, evidence, "certain" if sure else "possible", "document")


# ---------------------------------------------------------------------- declared relations
_VERSION_KINDS = frozenset({"version_of", "supersedes"})


def relation_graph(inferred: Sequence[Relation], declared: Sequence[Relation]) -> RelationGraph:
    """The user's relations over the inferred ones. A declared relation between two entries
    replaces what was inferred between them of the same family (versions, or the same kind
    of notice); ``distinct`` removes every version relation between its two entries."""

    def family(r: Relation) -> str:
        return "versions" if r.kind in _VERSION_KINDS | {"distinct"} else r.kind

    overridden = {(d.pair, family(d)) for d in declared}
    kept = [r for r in inferred if (r.pair, family(r)) not in overridden]
    relations = [*kept, *(d for d in declared if d.kind != "distinct")]
    pairs = {d.pair for d in declared if family(d) == "versions"}
    return RelationGraph(sorted(relations, key=_sort_key), pairs)


# ---------------------------------------------------------------------- the graph
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

    @property
    def banner(self) -> str | None:
        """One line for text output; None when there is nothing to say."""
        parts = []
        if self.retracted:
            parts.append(f"RETRACTED ({self.retraction})" if self.retraction else "RETRACTED")
        if self.superseded_by:
            record = " (the version of record)" if self.superseded_by == self.record else ""
            parts.append(f"superseded by @{self.superseded_by}{record}")
        others = [v.citekey for v in self.versions if v.citekey != self.superseded_by]
        if others:
            record = " (this is the version of record)" if self.record == self.citekey else ""
            parts.append(f"also in the library as {', '.join('@' + k for k in others)}{record}")
        elif self.versions and self.record == self.citekey:
            parts.append("the version of record")
        if self.preprint_pdf:
            parts.append(f"this PDF is a preprint, not the version of record ({self.preprint_pdf})")
        for c in self.conflicts_with:
            parts.append(f"conflicts with @{c.citekey}: {c.reason}")
        words = {
            "erratum_of": "an erratum of",
            "has_erratum": "has an erratum:",
            "reply_to": "a reply to",
            "has_reply": "has a reply or comment:",
            "retraction_notice": "retracted by the notice",
        }
        for r in self.related:
            parts.append(f"{words.get(r.relation, r.relation)} @{r.citekey}")
        return "; ".join(parts) or None


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
        build = _Builder({r.citekey: r for r in references}, similarity)
        build.declared = set(self.declared_pairs)
        build.notices = {r.source for r in self.relations if r.kind in ("erratum_of", "reply_to")}
        for r in self.relations:
            build.found[(r.kind, r.source, r.target)] = r
        _documents(build, documents)
        relations = sorted(build.found.values(), key=_sort_key)
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


# ---------------------------------------------------------------------- ranking
def prefer_records(
    ranked: Sequence[Any],
    graph: RelationGraph,
    citekey: Callable[[Any], str | None],
    score: Callable[[Any], float],
    tie: float = RECORD_TIE,
) -> list[Any]:
    """Between near-tied results of two versions of one work, the version of record first.

    A result of another version is never dropped: it moves down by as many places as the
    near-tied results of the record that overtake it, and only those. Scores within ``tie``
    (relative to the better one) are near-tied."""
    out = list(ranked)
    i = 0
    while i < len(out):
        key = citekey(out[i])
        record = graph.record(key)
        if record is None or record == key:
            i += 1
            continue
        floor = score(out[i]) - tie * abs(score(out[i]))
        for j in range(i + 1, len(out)):
            if score(out[j]) < floor:
                break
            if citekey(out[j]) == record:
                out.insert(i, out.pop(j))
                break
        i += 1
    return out


# ---------------------------------------------------------------------- check
@dataclass(frozen=True)
class CitationNote:
    """Something to know about a cited paper, beside the verdict on the claim."""

    severity: Literal["note", "warning"]
    message: str
    citekey: str | None = None


def citation_notes(flags: WorkFlags) -> list[CitationNote]:
    """What ``check`` says about citing a paper with these flags: a retraction is a warning;
    a version of record to cite instead, an erratum, a conflict or a preprint PDF a note.
    None of them changes the verdict about the claim."""
    key = flags.citekey
    if not key:
        return []
    notes = []
    if flags.retracted:
        notes.append(
            CitationNote(
                "warning",
                f"@{key} is retracted ({flags.retraction}): do not rest a claim on it",
                next((r.citekey for r in flags.related if r.relation == "retraction_notice"), None),
            )
        )
    if flags.superseded_by:
        record = " (the version of record)" if flags.superseded_by == flags.record else ""
        # the first piece of evidence is enough here; inspect --relations lists all of it
        why = f" ({flags.superseded_why.split('; ')[0]})" if flags.superseded_why else ""
        notes.append(
            CitationNote(
                "note",
                f"@{key} is superseded by @{flags.superseded_by}{record}: cite "
                f"@{flags.superseded_by}{why}",
                flags.superseded_by,
            )
        )
    for r in flags.related:
        if r.relation == "has_erratum":
            notes.append(
                CitationNote(
                    "note",
                    f"@{key} has an erratum in the library, @{r.citekey}: check the claim "
                    "against it",
                    r.citekey,
                )
            )
    for c in flags.conflicts_with:
        message = f"@{key} conflicts with @{c.citekey}: {c.reason}"
        notes.append(CitationNote("note", message, c.citekey))
    if flags.preprint_pdf:
        notes.append(
            CitationNote(
                "note",
                f"the stored PDF of @{key} is a preprint ({flags.preprint_pdf}): its wording "
                "and pages may differ from the version of record",
            )
        )
    return notes
