"""The Embedder port over onnxruntime for the two built-in MiniLMs: the hot path.

Every other model runs through FastEmbed (``fastembed_embedder``). These two keep a session of
citeloom's own because it was measured cheaper on the path every default project takes
(ADR 0019): a cold query spends half the CPU without ``import fastembed`` (which imports its
image models too) and with the optimised graph cached, and an ingest less CPU per chunk with
onnxruntime's threads sleeping rather than spinning while they wait (FastEmbed offers no such
option). The vectors are FastEmbed's for the same files, to the bit for the pooling: its
pooled-normalised path (mean over the attention mask, summed in float64, L2-normalised, cast
back to float32), held to FastEmbed's own by tests/integration/test_embedder.py. Texts are
sorted by length before they are batched (``sorted_runs``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from citeloom.adapters.embedding.models import ModelSpec, model_spec
from citeloom.adapters.embedding.sessions import model_folder, open_session
from citeloom.adapters.embedding.sorted_runs import SortedRuns, mean_pool, padded
from citeloom.adapters.embedding.tokenizer import load_model_tokenizer
from citeloom.domain.errors import EmbedderUnavailable

if TYPE_CHECKING:
    from numpy.typing import NDArray


# Texts per model run: one per intra-op thread. A run's activations (texts x window x 1,536
# floats in the feed-forward layer, 1.5 MB a 256-token text) are split between the threads by
# rows, so one text a thread keeps each thread's share in its core's L2 cache. Measured with
# benchmarks/embed_throughput.py on the 464 chunks of the shared papers (2 cores, 2 MB of L2
# each, quiet): 16 texts a run cost 29-31 % more CPU than one a thread (ADR 0030).
def texts_per_run(threads: int | None) -> int:
    """One text per thread onnxruntime runs: ``threads``, else its default (one per core)."""
    return threads or os.cpu_count() or 1


class OnnxEmbedder(SortedRuns):
    def __init__(
        self,
        spec: ModelSpec,
        onnx_path: Path,
        cache_dir: Path,
        threads: int | None = None,
        batch_size: int | None = None,
    ) -> None:
        super().__init__(spec.model_id, spec.tokenizer_dir)
        self.spec = spec
        self.onnx_path = onnx_path
        self.batch_size = batch_size or texts_per_run(threads)
        self._tokenizer = load_model_tokenizer(spec.tokenizer_dir)
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
        batch_size: int | None = None,
        model_cache: Path | None = None,
    ) -> OnnxEmbedder:
        """A built-in model (``loader.load_embedder`` loads any); ``model_cache``: this
        user's model cache, where the fp32 export is kept (default: ``cache_dir`` alone)."""
        spec = model_spec(model_id)
        onnx_path = spec.onnx_file(cache_dir, model_cache)
        return cls(spec, onnx_path, cache_dir, threads=threads, batch_size=batch_size)

    def _run(self, ids: list[list[int]]) -> NDArray[np.float32]:
        return mean_pool(*self.hidden_states(ids))

    def hidden_states(self, ids: list[list[int]]) -> tuple[NDArray[Any], NDArray[np.int64]]:
        """One model run over encoded texts padded on the right to the longest of them: the
        token vectors the pooled ones are made from, and the mask of real tokens (what
        benchmarks/page_alignment.py aligns word by word)."""
        input_ids, mask = padded(ids, self._tokenizer.pad_id)
        feeds = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        return self._session.run(None, feeds)[0], mask
