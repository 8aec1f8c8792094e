from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class TokenMatches(Protocol):
    """How closely each sentence holds each content word piece of a claim, by the model's
    contextual token vectors (BERTScore-like recall, docs/adr/0032).

    ``matches`` gives, per sentence, one value per content word piece of the claim (stop
    words and punctuation left out), the same pieces in the same order for every sentence:
    the highest cosine of that piece with any token of the sentence. A run of sentences holds
    a piece as well as its best sentence does, so the caller takes the maximum per piece
    over a span's sentences and averages."""

    def matches(self, claim: str, sentences: Sequence[str]) -> list[tuple[float, ...]]: ...
