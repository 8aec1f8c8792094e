from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class SentenceVectorStore(Protocol):
    """Sentence vectors of one embedding model kept between processes: what ``check`` needs
    of a cited page is embedded once, not on every run of a pre-commit hook. A vector depends
    only on the model and the sentence, so a stored one never goes stale."""

    def load(self) -> dict[str, Sequence[float]]:
        """Every stored vector by its sentence key (``sentence_key``); empty when none is
        stored or the store cannot be read (it only saves time)."""
        ...

    def save(self, vectors: Mapping[str, Sequence[float]]) -> None:
        """Add ``vectors`` (by sentence key) to the store, written whole or not at all; a
        store that cannot be written is left as it was."""
        ...
