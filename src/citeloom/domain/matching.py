"""Policies for deciding which library entry a document is.

A wrong citekey is worse than none: the user would quote the wrong paper. So identifiers
(DOI, arXiv id) are matched exactly, and a fuzzy title match is accepted only when it is both
good and clearly better than the runner-up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeloom.domain.models import Candidate

_DOI_IN_TEXT = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+|\b10/[a-z0-9]{4,12}\b", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*|doi\s+)", re.IGNORECASE)
_TRAILING = ".,;:)]}'\""


def normalise_doi(value: str | None) -> str | None:
    """Lower case, no resolver prefix, no trailing punctuation. Short DOIs (10/abc) are kept."""
    if not value:
        return None
    doi = _DOI_PREFIX.sub("", value.strip()).strip().rstrip(_TRAILING).lower()
    if doi.count("(") < doi.count(")"):  # "(doi:10.1000/x)" lost its opening bracket
        doi = doi.rstrip(")")
    return doi if doi.startswith("10.") or doi.startswith("10/") else None


def find_dois(text: str) -> list[str]:
    """DOIs printed in text, normalised, in order of appearance, without duplicates."""
    found: dict[str, None] = {}
    for raw in _DOI_IN_TEXT.findall(text):
        doi = normalise_doi(raw)
        if doi:
            found[doi] = None
    return list(found)


@dataclass(frozen=True)
class TitleDecision:
    accepted: Candidate | None
    problem: str | None  # "MetadataAmbiguous" or "MetadataMissing" when nothing is accepted


def decide_title_match(
    ranked: Sequence[Candidate], threshold: float = 0.8, margin: float = 0.05
) -> TitleDecision:
    """Accept the best candidate only if it passes the threshold and beats the runner-up."""
    if not ranked or ranked[0].score < threshold:
        return TitleDecision(None, "MetadataMissing")
    if len(ranked) > 1 and ranked[0].score - ranked[1].score < margin:
        return TitleDecision(None, "MetadataAmbiguous")
    return TitleDecision(ranked[0], None)
