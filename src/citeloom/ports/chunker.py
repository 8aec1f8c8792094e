from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from citeloom.domain.models import Chunk, ConvertedDocument


class Chunker(Protocol):
    """Cuts a converted document into heading-aware chunks that fit the embedder's window."""

    @property
    def tokenizer_id(self) -> str:
        """Fingerprint of the tokenizer that counts word pieces (validate compares it)."""
        ...

    def chunk(self, document: ConvertedDocument, doc_id: str) -> list[Chunk]: ...

    def embed_text(self, text: str, section_path: Sequence[str]) -> str:
        """What a chunk of ``text`` under these headings is embedded and BM25-indexed as
        (``Chunk.embed_text``): how a stored chunk, which keeps only its text, is encoded
        again without cutting its document anew."""
        ...
