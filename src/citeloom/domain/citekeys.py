"""Which library entry a citation key names, and what the library says that is wrong about it.

A citation key must name exactly one entry: a draft's ``[@key]`` is resolved by it, and every
passage citeloom labels with it is quoted as that entry's. When two entries claim one key (two
Zotero items whose citationKey fields agree, two CSL-JSON entries with one id), neither owns
it: labelling either one's passages with it would let a reader cite the wrong paper. Such
entries are left without a usable key, exactly as entries with no key at all, until the
library is fixed; a Zotero item's passages are then cited by the item itself
(``[no citekey: Zotero item ABCD2345, p. 3]``), a label no draft resolves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

# where a Zotero item's citation key was read from, in the order they are tried
CITATION_KEY_FIELD = "citationKey field"
EXTRA_LINE = "Extra"
BETTER_BIBTEX = "Better BibTeX"

ProblemKind = Literal["shared-key", "no-key", "key-disagreement"]


@dataclass(frozen=True)
class KeyClaim:
    """One entry claiming a citation key: who it is, its title, and where the key is written."""

    citekey: str
    entry: str  # "Zotero item ABCD2345", "entry $[3] of library.json"
    title: str
    source: str  # CITATION_KEY_FIELD, EXTRA_LINE, BETTER_BIBTEX, or the references file

    def describe(self) -> str:
        title = f' "{self.title}"' if self.title else ""
        return f"{self.entry}{title} ({self.source})"


@dataclass(frozen=True)
class LibraryProblem:
    """Something wrong in the library that changes how its papers are cited: ingest warns of
    it, ``validate`` reports it (``fails``: as a failure, else as a warning)."""

    kind: ProblemKind
    detail: str  # the entries and where their keys come from
    fix: str
    fails: bool = False

    def __str__(self) -> str:
        return f"{self.detail}. Fix: {self.fix}"


def shared_keys(claims: Iterable[KeyClaim]) -> dict[str, list[KeyClaim]]:
    """The keys more than one entry claims, each with its claimants in the library's order.
    Keys are compared as written (pandoc resolves ``[@key]`` case-sensitively)."""
    by_key: dict[str, list[KeyClaim]] = defaultdict(list)
    for claim in claims:
        by_key[claim.citekey].append(claim)
    return {key: found for key, found in by_key.items() if len(found) > 1}


def shared_key_problem(citekey: str, claims: list[KeyClaim], fix: str) -> LibraryProblem:
    who = "; ".join(c.describe() for c in claims)
    return LibraryProblem(
        "shared-key",
        f"citekey {citekey} is claimed by {len(claims)} entries: {who}. None of them is "
        f"cited as @{citekey} until each has its own key",
        fix,
        fails=True,
    )


def no_usable_key_label(item_key: str) -> str:
    """How a passage of a Zotero item without a usable key is cited: by the item, never by a
    key (none, or one another item claims too)."""
    return f"no citekey: Zotero item {item_key}"
