"""What a claim's facts are found to be on a page: each slot the page gives another value
(a contradiction) or says nothing of (missing), with both sides' words for the message.

Every slot reader (numbers, negations, bounds, directions, bindings, names) answers in these
terms, so ``check`` shows one kind of difference whichever slot found it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DifferenceKind = Literal["number", "unit", "negation", "direction", "term"]

# Words that frame a claim rather than state it: never looked for on the page.
FRAMING_WORDS = frozenset(
    """reported report reports reporting colleagues coworkers co-workers authors author et al
    according claim claims claimed argue argues argued note notes noted observe observes
    observed find finds found show shows showed shown demonstrate demonstrates describe
    describes described state states stated suggest suggests suggested conclude concludes
    concluded study work paper article""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Difference:
    kind: DifferenceKind
    draft: str  # what the claim says: "12 sites"
    page: str  # what the page says: "8 sites"; "" when it says nothing of it

    def describe(self, page_label: str | None) -> str:
        where = f"p. {page_label}" if page_label else "the page"
        said = self.page or "not stated"
        return f"draft: {self.draft}; {where}: {said}"


@dataclass(frozen=True)
class Facts:
    """How a passage stands to the claim's checkable facts."""

    contradictions: tuple[Difference, ...] = ()  # the page says otherwise, of the same thing
    missing: tuple[Difference, ...] = ()  # the claim states it, the passage does not

    @property
    def agree(self) -> bool:
        return not self.contradictions and not self.missing
