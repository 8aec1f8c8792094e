"""What relations read of one library entry: how near it is to a version of record (its
publication stage), its title folded for comparison and its authors' family names."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from citeloom.domain.models import Reference
from citeloom.domain.text import fold_for_match

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
TAGS = re.compile(r"<[^>]+>")
QUOTES = "\"'“”‘’«»"


def title_key(title: str) -> str:
    """A title folded for comparison, without markup (``<i>``) or surrounding quotes."""
    return fold_for_match(TAGS.sub("", title).strip().strip(QUOTES))


def families(ref: Reference) -> tuple[str, ...]:
    """The entry's authors' family names, folded: the first one blocks title comparisons."""
    return tuple(f for f in (fold_for_match(n) for n in ref.family_names) if f)


def same_authors(a: Reference, b: Reference) -> bool:
    """The same first author and at least half of the shorter author list in common."""
    fa, fb = families(a), families(b)
    if not fa or not fb or fa[0] != fb[0]:
        return False
    shared = len(set(fa) & set(fb))
    return shared * 2 >= min(len(set(fa)), len(set(fb)))


def authors_phrase(a: Reference, b: Reference) -> str:
    """How two entries' authors agree, as evidence says it."""
    shared = sorted(set(families(a)) & set(families(b)))
    return (
        "the same authors"
        if set(families(a)) == set(families(b))
        else (f"{len(shared)} shared authors, first author {a.family_names[0]}")
    )


def default_similarity(a: str, b: str) -> float:
    """Similarity of two folded titles in [0, 1] (the adapters pass rapidfuzz's instead)."""
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def scholarly(ref: Reference) -> bool:
    """A titled entry of a kind whose title is worth comparing (``SCHOLARLY``)."""
    return (ref.csl_type or "article").lower() in SCHOLARLY and bool(ref.title)
