"""The Embedder port over FastEmbed's ``TextEmbedding``: every model that is not built in.

FastEmbed tokenizes, runs and pools the model as its catalogue says (first token, mean, last
token, a model's own pooled output, multi-task models' query and passage tasks); citeloom adds
only what FastEmbed leaves to its caller: the family's query and passage prefixes (e5, bge,
nomic, ...) and the figures the chunker and the index need (window, dimension, tokenizer
fingerprint), read from the model's own files. ``local_files_only`` always: a model is
downloaded only by ``fastembed_models.download`` (``--allow-download``), before it gets here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from citeloom.adapters.embedding.models import FastEmbedModel
from citeloom.adapters.embedding.tokenizer import ModelTokens
from citeloom.domain.errors import EmbedderUnavailable

if TYPE_CHECKING:
    from fastembed import TextEmbedding

# Texts per model run: FastEmbed's own default, kept for the models it runs (the built-in
# MiniLMs run one text per thread, onnx_embedder.texts_per_run).
BATCH_SIZE = 16


class FastEmbedEmbedder(ModelTokens):
    def __init__(
        self, spec: FastEmbedModel, threads: int | None = None, batch_size: int = BATCH_SIZE
    ) -> None:
        super().__init__(spec.model_id, spec.folder)
        self.spec = spec
        self.batch_size = batch_size
        try:
            self._model = _text_embedding(spec, threads)
            # the dimension from a vector: a folder's registered model records none
            self._dimensions = len(next(iter(self._model.passage_embed(["dimension"]))))
        except Exception as error:  # FastEmbed and onnxruntime raise their own untyped errors
            raise EmbedderUnavailable(
                f"embedding model '{spec.model_id}' failed to load from {spec.folder}: {error}"
            ) from error

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        prefixed = [self.spec.passage_prefix + text for text in texts]
        vectors = self._model.passage_embed(prefixed, batch_size=self.batch_size)
        return [vector.tolist() for vector in vectors]

    def embed_query(self, text: str) -> list[float]:
        vector = next(iter(self._model.query_embed(self.spec.query_prefix + text)))
        result: list[float] = vector.tolist()
        return result

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        prefixed = [self.spec.query_prefix + text for text in texts]
        vectors = self._model.query_embed(prefixed, batch_size=self.batch_size)
        return [vector.tolist() for vector in vectors]


def _text_embedding(spec: FastEmbedModel, threads: int | None) -> TextEmbedding:
    """FastEmbed's model, from its cache or from a folder of the user's; never a download."""
    from fastembed import TextEmbedding

    if spec.cache_dir is not None:
        return TextEmbedding(
            spec.fastembed_name,
            cache_dir=str(spec.cache_dir),
            threads=threads,
            local_files_only=True,
        )
    # cache_dir: the folder itself, so that FastEmbed creates no cache folder of its own
    return TextEmbedding(
        spec.fastembed_name,
        cache_dir=str(spec.folder),
        threads=threads,
        local_files_only=True,
        specific_model_path=str(spec.folder),
    )
