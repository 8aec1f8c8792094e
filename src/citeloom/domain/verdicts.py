"""The verdicts ``check`` gives a citation, and which of them fail a check by default."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

Verdict = Literal[
    "supported",
    "mismatch",
    "unconfirmed",
    "other-page",
    "no-page",
    "no-such-page",
    "not-found",
    "unknown-key",
    "not-ingested",
    "malformed",
]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)  # in the order counts are shown
# The verdicts a check fails on by default: those whose precision measured on text not tuned
# on is >= 0.95 (benchmarks/check_claims.py, docs/adr/0018). ``unconfirmed`` is not one: it
# says citeloom cannot confirm the claim, not that the claim is wrong; nor ``other-page``: a
# claim an abstract and a results page both state is often judged stated on the other one.
# ``malformed`` is: a citation the draft's own processor cannot read (an unclosed bracket, a
# range that runs backwards) is wrong in the text whatever the paper says.
DEFAULT_FAIL_ON: frozenset[Verdict] = frozenset(
    {
        "mismatch",
        "no-page",
        "no-such-page",
        "not-found",
        "unknown-key",
        "not-ingested",
        "malformed",
    }
)


def parse_verdicts(names: Iterable[str]) -> frozenset[Verdict]:
    """Verdict names as a user writes them ("mismatch, not-found"); an unknown one raises
    ValueError naming the known ones."""
    chosen: set[Verdict] = set()
    for name in names:
        for written in name.split(","):
            part = written.strip()
            if not part:
                continue
            if part not in VERDICTS:
                raise ValueError(f"unknown verdict {part!r}; known: {', '.join(VERDICTS)}")
            chosen.add(part)
    return frozenset(chosen)
