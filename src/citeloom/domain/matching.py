"""Policies for deciding which library entry a document is.

A wrong citekey is worse than none: the user would quote the wrong paper. So identifiers
(DOI, arXiv id) are matched exactly, and a fuzzy title match is accepted only when it is good,
clearly better than the runner-up (or set apart by the authors and year printed on page 1),
and not contradicted by page 1 (none of the entry's authors printed there).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeloom.domain.models import Candidate

_DOI_IN_TEXT = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+|\b10/[a-z0-9]{4,12}\b", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*|doi\s+)", re.IGNORECASE)
_TRAILING = ".,;:)]}'\""
# New-style ids (0807.3577, 2501.10120v1) and old-style ones (hep-th/9901001, math.GT/0309136).
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv\s*(?:e-?print)?\s*[:.]?\s*(?:org/(?:abs|pdf)/)?){_ARXIV_ID}", re.IGNORECASE
)


def normalise_doi(value: str | None) -> str | None:
    """Lower case, no resolver prefix, no trailing punctuation. Short DOIs (10/abc) are kept."""
    if not value:
        return None
    doi = _DOI_PREFIX.sub("", value.strip()).strip().rstrip(_TRAILING).lower()
    if doi.count("(") < doi.count(")"):  # "(doi:10.1000/x)" lost its opening bracket
        doi = doi.rstrip(")")
    return doi if doi.startswith("10.") or doi.startswith("10/") else None


_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$")


def arxiv_id_of_doi(doi: str | None) -> str | None:
    """arXiv's own DOIs (``10.48550/arXiv.2501.10120``) name an arXiv id."""
    match = _ARXIV_DOI.match(doi or "")
    if match is None:
        return None
    ids = find_arxiv_ids(f"arXiv:{match[1]}")
    return ids[0] if ids else None


# arXiv's watermark down the margin of every arXiv copy: "arXiv:2501.10120v1 [cs.IR] 17 Jan
# 2025". A journal prints an arXiv id too ("ArXiv ePrint: 0807.3577"), never this stamp.
_ARXIV_STAMP = re.compile(
    r"arXiv\s*:\s*(\d{4}\.\d{4,5}|[a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})\s*(v\d+)\s*"
    r"\[\s*[a-zA-Z\-]+(?:\.[a-zA-Z\-]+)?\s*\]\s*\d{1,2}\s*[A-Z][a-z]{2}\s*\d{4}"
)


def arxiv_stamp(text: str) -> str | None:
    """The id and version of arXiv's stamp printed in text (``2501.10120v1``), if any."""
    match = _ARXIV_STAMP.search(text)
    return f"{match[1]}{match[2]}" if match else None


def find_dois(text: str) -> list[str]:
    """DOIs printed in text, normalised, in order of appearance, without duplicates."""
    found: dict[str, None] = {}
    for raw in _DOI_IN_TEXT.findall(text):
        doi = normalise_doi(raw)
        if doi:
            found[doi] = None
    return list(found)


def find_arxiv_ids(text: str) -> list[str]:
    """arXiv ids printed as 'arXiv:0807.3577v2', 'ArXiv ePrint: 0807.3577' or in an arxiv.org
    URL, without version, in order of appearance."""
    found: dict[str, None] = {}
    for raw in _ARXIV_IN_TEXT.findall(text):
        found[raw.lower() if "/" in raw else raw] = None
    return list(found)


# arXiv's archives before April 2007, whose ids read archive/YYMMNNN ("hep-ph/9412269")
_OLD_ARCHIVES = (
    "acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|"
    "comp-gas|cond-mat|cs|dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math|math-ph|"
    "mtrl-th|nlin|nucl-ex|nucl-th|patt-sol|physics|plasm-ph|q-alg|q-bio|quant-ph|solv-int|"
    "supr-con"
)
_BARE_OLD = re.compile(
    rf"(?<![\w\-/.])((?:{_OLD_ARCHIVES})(?:\.[A-Z]{{2}})?/(?:9[1-9]|0[0-7])(?:0[1-9]|1[0-2])\d{{3}})"
    r"(?:v\d+)?(?![\w/])"
)
# YYMM.NNNN from April 2007 to 2014, YYMM.NNNNN since 2015
_BARE_NEW = re.compile(r"(?<![\w.\-/])(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5})(?:v\d+)?(?![\w.\-/]|\.\d)")


def _new_style_valid(arxiv_id: str) -> bool:
    month, number = arxiv_id.split(".")
    if len(number) == 4:
        return "0704" <= month <= "1412"
    return month >= "1501"


def find_bare_arxiv_ids(text: str) -> list[str]:
    """arXiv ids printed without "arXiv:" (``hep-ph/9412269 09 Dec 94``, a preprint number
    ``2101.01234``), without version, in order of appearance. Only ids arXiv could have
    issued: a known old archive with a year and month, or a new-style number of its era;
    matched against the library's arXiv ids only, never taken on their own."""
    found: dict[str, None] = {}
    for match in _BARE_OLD.finditer(text):
        found[match[1].lower()] = None
    for match in _BARE_NEW.finditer(text):
        if _new_style_valid(match[1]):
            found[match[1]] = None
    return list(found)


def arxiv_id_of_field(value: str) -> str | None:
    """The arXiv id a library field holds: printed with its prefix or as a URL anywhere in
    it, or the whole field a bare id (a ``number`` or ``eprint`` of ``hep-ph/9412269``)."""
    ids = find_arxiv_ids(value)
    if ids:
        return ids[0]
    bare = find_bare_arxiv_ids(value.strip())
    return bare[0] if len(bare) == 1 and value.strip().lower().startswith(bare[0].lower()) else None


@dataclass(frozen=True)
class TitleCandidate:
    """An entry scored against the document: title similarity and page-1 evidence."""

    citekey: str
    score: float  # title similarity in [0, 1]
    authors_found: float  # share of the entry's family names printed on page 1 (0 if none known)
    authors_known: bool  # the entry lists authors at all
    year_found: bool  # the entry's year is printed on page 1

    @property
    def evidence(self) -> tuple[float, bool]:
        return (self.authors_found, self.year_found)


@dataclass(frozen=True)
class TitleDecision:
    accepted: Candidate | None
    problem: str | None  # "MetadataAmbiguous" or "MetadataMissing" when nothing is accepted


def decide_title_match(
    ranked: Sequence[TitleCandidate],
    threshold: float = 0.8,
    margin: float = 0.05,
    page_has_names: bool = True,
) -> TitleDecision:
    """Accept the best candidate only if it is good, clearly ahead and not contradicted.

    ``ranked`` is sorted by title score. Candidates within ``margin`` of the best are a tie;
    a tie is broken only by strictly better evidence from page 1 (authors, then year), never
    by a coin toss. ``page_has_names`` says whether page 1 has enough text to judge authors
    (a scan without text does not contradict anything).
    """
    if not ranked or ranked[0].score < threshold:
        return TitleDecision(None, "MetadataMissing")
    tied = [c for c in ranked if c.score >= threshold and ranked[0].score - c.score < margin]
    chosen = tied[0]
    if len(tied) > 1:
        best = max(c.evidence for c in tied)
        leaders = [c for c in tied if c.evidence == best]
        if len(leaders) > 1 or best == (0.0, False):
            return TitleDecision(None, "MetadataAmbiguous")
        chosen = leaders[0]
    if page_has_names and chosen.authors_known and chosen.authors_found == 0.0:
        # same title, none of its authors on the page: another paper with this title
        return TitleDecision(None, "MetadataAmbiguous")
    return TitleDecision(Candidate(chosen.citekey, chosen.score), None)
