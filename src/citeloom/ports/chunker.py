from __future__ import annotations

from typing import Protocol

from citeloom.domain.models import Chunk, ConvertedDocument


class Chunker(Protocol):
    """Cuts a converted document into heading-aware chunks that fit the embedder's window."""

    @property
    def tokenizer_id(self) -> str:
        """Fingerprint of the tokenizer that counts word pieces (validate compares it)."""
        ...

    def chunk(self, document: ConvertedDocument, doc_id: str) -> list[Chunk]: ...
