"""The TokenMatches port over the built-in MiniLM's contextual token vectors (ADR 0032).

A claim's content word pieces (no stop word, no punctuation) are compared with every token of
each sentence; the best cosine per piece is BERTScore's recall before its average. A
sentence's token vectors depend only on the sentence (each is run alone through the model, so
a page's sentences are computed once whichever claim asks), and are kept for the ``keep``
sentences used last: a draft cites the same pages again and again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
from citeloom.domain.abstention import STOPWORDS

if TYPE_CHECKING:
    from numpy.typing import NDArray


def content_piece(piece: str) -> bool:
    """A word piece that carries content: a word or the rest of one, not a stop word or a
    punctuation mark."""
    bare = piece.removeprefix("##")
    return bare.isalnum() and (piece.startswith("##") or bare.lower() not in STOPWORDS)


class OnnxTokenMatches:
    def __init__(self, embedder: OnnxEmbedder, keep: int = 4096) -> None:
        self.embedder = embedder
        self.keep = keep
        self._sentences: OrderedDict[str, NDArray[Any]] = OrderedDict()
        self._claims: OrderedDict[str, NDArray[Any]] = OrderedDict()

    def matches(self, claim: str, sentences: Sequence[str]) -> list[tuple[float, ...]]:
        pieces = self._claim(claim)
        if not len(pieces):
            return [() for _ in sentences]
        self._embed([s for s in dict.fromkeys(sentences) if s not in self._sentences])
        out = []
        for sentence in sentences:
            tokens = self._sentences[sentence]
            self._sentences.move_to_end(sentence)
            if not len(tokens):
                out.append(tuple(0.0 for _ in range(len(pieces))))
                continue
            best = (pieces @ tokens.T.astype(np.float32)).max(axis=1)
            out.append(tuple(float(v) for v in best))
        while len(self._sentences) > self.keep:
            self._sentences.popitem(last=False)
        return out

    def _claim(self, claim: str) -> NDArray[Any]:
        if claim not in self._claims:
            ((pieces, vectors),) = self.embedder.token_vectors([claim])
            keep = [i for i, p in enumerate(pieces) if content_piece(p)]
            self._claims[claim] = vectors[keep]
            while len(self._claims) > self.keep:
                self._claims.popitem(last=False)
        return self._claims[claim]

    def _embed(self, sentences: list[str]) -> None:
        if not sentences:
            return
        for sentence, (_, vectors) in zip(
            sentences, self.embedder.token_vectors(sentences), strict=True
        ):
            # half precision: a page's tokens kept at half the memory, cosines to 3 places
            self._sentences[sentence] = vectors.astype(np.float16)
