from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Dense text embeddings. ``model_id`` is what the index's write guard compares."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Word pieces the model sees, [CLS] and [SEP] included."""
        ...

    @property
    def tokenizer_id(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """``embed_query`` of several texts in few model runs: a draft's claims, each a query
        of the sentences of its cited pages."""
        ...

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` in the model's tokenizer (for budgets)."""
        ...
