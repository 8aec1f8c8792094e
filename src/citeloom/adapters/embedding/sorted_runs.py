"""What the two embedders citeloom runs itself share: texts sorted by length before they are
cut into runs (a run pads to its own longest text, so a whole document's chunks pad least this
way), vectors handed back in the caller's order, and FastEmbed's mean pooling to the bit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from citeloom.adapters.embedding.tokenizer import ModelTokenizer, ModelTokens

if TYPE_CHECKING:
    from numpy.typing import NDArray


def padded(
    ids: list[list[int]], pad_id: int, width: int | None = None
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Encoded texts padded on the right to ``width`` (default: the longest of them), and the
    mask of their real tokens: one model run's input."""
    width = width or max(len(row) for row in ids)
    input_ids = np.full((len(ids), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, tokens in enumerate(ids):
        input_ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return input_ids, mask


def mean_pool(hidden: NDArray[Any], mask: NDArray[np.int64]) -> NDArray[np.float32]:
    """FastEmbed's pooling to the bit: float64 sums over real tokens, then L2 norm."""
    sums = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = sums / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    return _normalised(pooled).astype(hidden.dtype, copy=False)


def _normalised(vectors: NDArray[Any]) -> NDArray[Any]:
    norms = np.maximum(np.linalg.norm(vectors, ord=2, axis=1, keepdims=True), 1e-12)
    return vectors / norms


class SortedRuns(ModelTokens):
    """The Embedder port's calls over ``_run``, one model run of a few encoded texts."""

    batch_size: int  # texts a run
    _tokenizer: ModelTokenizer

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        result: list[float] = self._embed([text])[0].tolist()
        return result

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(list(texts)).tolist()

    def _embed(self, texts: list[str]) -> NDArray[np.float32]:
        ids = self._tokenizer.encode(texts)
        vectors = np.empty((len(texts), self._dimensions), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors[batch] = self._run([ids[i] for i in batch])
        return vectors

    def _run(self, ids: list[list[int]]) -> NDArray[np.float32]:
        raise NotImplementedError
