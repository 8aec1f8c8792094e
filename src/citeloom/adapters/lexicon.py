"""The word lists check reads as lexical knowledge, from the package's data files."""

from __future__ import annotations

from functools import lru_cache

from citeloom.domain.antonyms import Antonyms, read_antonyms
from citeloom.resources import ANTONYMS


@lru_cache(maxsize=1)
def antonyms() -> Antonyms:
    """WordNet 3.0's direct antonyms (3,235 pairs), read once per process."""
    with ANTONYMS.open(encoding="utf-8") as lines:
        return read_antonyms(lines)
