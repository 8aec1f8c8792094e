from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class TermNeighbours(Protocol):
    """Which words of a page are close in meaning to each term of a claim.

    Authors restate a finding in other words ("does not lead to volume acceleration" for
    "the deceleration parameter is strictly positive"): a claim's term can be held by a
    page's word that is not its spelling. ``check`` asks this of the cited pages' words only,
    so a whole paper is never embedded word by word per citation (docs/adr/0028)."""

    def neighbours(
        self, terms: Sequence[str], words: Sequence[str], floor: float
    ) -> dict[str, dict[str, float]]:
        """For each term, the words (of ``words``, other than itself) whose similarity to it
        is at least ``floor``, with that similarity; a term with none is left out."""
        ...
