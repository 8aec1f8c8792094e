"""The TermNeighbours port over an embedding model: words compared by their vectors.

Each word is embedded alone (the model's vector of a one-word text) and kept: a page's words
come back citation after citation, and a paper's vocabulary is a few thousand words, so the
cache stays small (a MiniLM vector is 1.5 KB). The similarities of a claim's terms with a
page's words are one matrix product.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from citeloom.ports import Embedder

if TYPE_CHECKING:
    from numpy.typing import NDArray


class EmbeddedNeighbours:
    def __init__(self, embedder: Embedder, limit: int = 50_000) -> None:
        self.embedder = embedder
        self.limit = limit
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def neighbours(
        self, terms: Sequence[str], words: Sequence[str], floor: float
    ) -> dict[str, dict[str, float]]:
        terms = list(dict.fromkeys(terms))
        words = list(dict.fromkeys(words))
        if not terms or not words:
            return {}
        term_matrix = self._matrix(terms)
        word_matrix = self._matrix(words)
        similarity = term_matrix @ word_matrix.T
        out: dict[str, dict[str, float]] = {}
        for row, term in enumerate(terms):
            close = np.nonzero(similarity[row] >= floor)[0]
            found = {words[i]: float(similarity[row, i]) for i in close if words[i] != term}
            if found:
                out[term] = found
        return out

    def _matrix(self, words: list[str]) -> NDArray[Any]:
        with self._lock:
            missing = [w for w in words if w not in self._vectors]
        fresh = self.embedder.embed_documents(missing) if missing else []
        with self._lock:
            for word, vector in zip(missing, fresh, strict=True):
                self._vectors[word] = self._normalised(vector)
            rows = []
            for word in words:
                held = self._vectors.get(word)
                if held is None:  # dropped meanwhile by another call
                    held = self._normalised(self.embedder.embed_documents([word])[0])
                else:
                    self._vectors.move_to_end(word)
                rows.append(held)
            while len(self._vectors) > self.limit:
                self._vectors.popitem(last=False)
        return np.vstack(rows)

    @staticmethod
    def _normalised(vector: Sequence[float]) -> NDArray[np.float32]:
        array = np.asarray(vector, dtype=np.float32)
        return array / max(float(np.linalg.norm(array)), 1e-12)
