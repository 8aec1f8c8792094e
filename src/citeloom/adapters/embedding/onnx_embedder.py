"""The Embedder port over onnxruntime: any ONNX text model with mean pooling.

Why not FastEmbed itself: ``import fastembed`` alone took 1.1 s of a 1.9 s cold query (it
imports its image models and PIL). This module needs onnxruntime, numpy and ``tokenizers``,
and reproduces FastEmbed's pooled-normalised path for these models exactly (mean over the
attention mask, summed in float64, L2-normalised, cast back to float32), so collections it
built keep their vectors. What differs is speed: texts are sorted by length before they are
batched, so a batch pads to its own longest text instead of a random neighbour's.
onnxruntime's graph optimisations (for the int8 file: turning its int8 weights back into
floats, fusing layer norms and GELUs) cost a third of a second at every start; they are applied
once and the optimised graph is kept in the cache, which is what a cold query then loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.adapters.embedding.models import ModelSpec, resolve_model
from citeloom.adapters.embedding.sessions import model_folder, open_session
from citeloom.adapters.embedding.tokenizer import (
    load_counting_tokenizer,
    load_model_tokenizer,
    tokenizer_fingerprint,
)
from citeloom.domain.errors import EmbedderUnavailable

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Texts per model run. Measured in benchmarks/embed_throughput.py: past 16 the speed no longer
# grows on two cores while the activations (batch x window x hidden per layer) still do.
BATCH_SIZE = 16


def mean_pool(hidden: NDArray[Any], mask: NDArray[np.int64]) -> NDArray[np.float32]:
    """FastEmbed's pooling to the bit: float64 sums over real tokens, then L2 norm."""
    sums = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = sums / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    return _normalised(pooled).astype(hidden.dtype, copy=False)


def cls_pool(hidden: NDArray[Any]) -> NDArray[np.float32]:
    """FastEmbed's pooling of bge-style models: the first token's state (or the model's own
    pooled output when it gives one vector per text), L2-normalised."""
    first = hidden[:, 0] if hidden.ndim == 3 else hidden
    return _normalised(first).astype(hidden.dtype, copy=False)


def _normalised(vectors: NDArray[Any]) -> NDArray[Any]:
    norms = np.maximum(np.linalg.norm(vectors, ord=2, axis=1, keepdims=True), 1e-12)
    return vectors / norms


class OnnxEmbedder:
    def __init__(
        self,
        spec: ModelSpec,
        onnx_path: Path,
        cache_dir: Path,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self.spec = spec
        self.onnx_path = onnx_path
        self.batch_size = batch_size
        self._tokenizer = load_model_tokenizer(spec.tokenizer_dir)
        self._tokenizer_id = tokenizer_fingerprint(spec.tokenizer_dir)
        self._counter: Any = None
        try:
            folder = model_folder(cache_dir, spec.model_id)
            self._session = open_session(onnx_path, folder, threads)
        except Exception as error:  # onnxruntime raises its own untyped errors
            raise EmbedderUnavailable(
                f"embedding model '{spec.model_id}' failed to load from {onnx_path}: {error}"
            ) from error
        self._inputs = {node.name for node in self._session.get_inputs()}
        width = self._session.get_outputs()[0].shape[-1]
        if not isinstance(width, int):
            raise EmbedderUnavailable(f"{onnx_path}: the model's output has no fixed dimension")
        self._dimensions = width

    @classmethod
    def load(
        cls,
        model_id: str,
        cache_dir: Path,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        sources: ModelSources | None = None,
    ) -> OnnxEmbedder:
        """``sources``: where a model that is not built in may be, and this user's model
        cache (default: ``cache_dir`` alone; nothing downloads unless
        ``sources.allow_download``)."""
        spec = resolve_model(model_id, cache_dir, sources)
        onnx_path = spec.onnx_file(cache_dir, sources.model_cache if sources else None)
        return cls(spec, onnx_path, cache_dir, threads=threads, batch_size=batch_size)

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._tokenizer.window

    @property
    def tokenizer_id(self) -> str:
        return self._tokenizer_id

    @property
    def tokenizer_dir(self) -> Path:
        return self.spec.tokenizer_dir

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        prefix = self.spec.passage_prefix
        return self._embed([prefix + text for text in texts]).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self.spec.query_prefix + text])[0].tolist()

    def count_tokens(self, text: str) -> int:
        if self._counter is None:
            self._counter = load_counting_tokenizer(self.spec.tokenizer_dir)
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def _embed(self, texts: list[str]) -> NDArray[np.float32]:
        ids = self._tokenizer.encode(texts)
        vectors = np.empty((len(texts), self._dimensions), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors[batch] = self._run([ids[i] for i in batch])
        return vectors

    def _run(self, ids: list[list[int]]) -> NDArray[np.float32]:
        """One model run over texts padded on the right to the longest of them."""
        width = max(len(row) for row in ids)
        input_ids = np.full((len(ids), width), self._tokenizer.pad_id, dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for row, tokens in enumerate(ids):
            input_ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(None, feeds)[0]
        if self.spec.pooling == "cls" or hidden.ndim == 2:
            return cls_pool(hidden)
        return mean_pool(hidden, mask)
