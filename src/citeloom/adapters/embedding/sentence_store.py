"""Sentence vectors on disk, one file per embedding model in ``cache_dir/sentences``.

``check`` embeds the sentences of every cited page; a pre-commit hook runs it in a fresh
process each time, so without a store every run embeds the same pages again (most of a
check's time). The vectors are kept as computed (float32: a MiniLM vector is 1.5 KB, and a
rounded one could move a verdict on its border between a first run and a second), keyed by a
hash of the sentence, in one sealed file (``cache_files``) rewritten whole when a run added
vectors; the most recently added ``limit`` are kept.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from citeloom.adapters.cache_files import read_sealed, write_sealed

KIND = "citeloom-sentence-vectors-2"


class FileSentenceStore:
    def __init__(self, folder: Path, model_id: str, limit: int = 200_000) -> None:
        self.path = folder / f"{model_id.replace('/', '--')}.npz"
        self.limit = limit

    def load(self) -> dict[str, Sequence[float]]:
        body = read_sealed(self.path, KIND)
        if body is None:
            return {}
        try:
            with np.load(io.BytesIO(body), allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
        except (OSError, ValueError, KeyError):
            return {}
        if len(keys) != len(vectors):
            return {}
        rows = vectors.astype(np.float32).tolist()  # plain floats: the judge sums them in Python
        return {str(k): row for k, row in zip(keys, rows, strict=True)}

    def save(self, vectors: Mapping[str, Sequence[float]]) -> None:
        if not vectors:
            return
        merged = self.load()
        merged.update(vectors)
        keys = list(merged)[-self.limit :]
        matrix = np.asarray([merged[k] for k in keys], dtype=np.float32)
        buffer = io.BytesIO()
        np.savez(buffer, keys=np.asarray(keys), vectors=matrix)
        with contextlib.suppress(OSError):  # a store that cannot be written only costs time
            write_sealed(self.path, KIND, buffer.getvalue())
