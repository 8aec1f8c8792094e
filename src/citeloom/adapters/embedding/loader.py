"""One call that loads any embedding model: the built-in MiniLMs with citeloom's own session,
every other one through FastEmbed (ADR 0019). FastEmbed is imported only for the latter."""

from __future__ import annotations

from pathlib import Path

from citeloom.adapters.embedding.fastembed_embedder import FastEmbedEmbedder
from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.adapters.embedding.models import FastEmbedModel, resolve_model
from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

# What bootstrap hands to the chunker and the services: the Embedder port and the folder of
# the model's tokenizer files (the chunker counts word pieces with them).
LoadedEmbedder = OnnxEmbedder | FastEmbedEmbedder


def load_embedder(
    model_id: str,
    cache_dir: Path,
    sources: ModelSources | None = None,
    threads: int | None = None,
) -> LoadedEmbedder:
    """``sources``: where a model that is not built in may be, and this user's model cache
    (default: ``cache_dir`` alone; nothing downloads unless ``sources.allow_download``)."""
    spec = resolve_model(model_id, cache_dir, sources)
    if isinstance(spec, FastEmbedModel):
        return FastEmbedEmbedder(spec, threads=threads)
    model_cache = sources.model_cache if sources else None
    return OnnxEmbedder(spec, spec.onnx_file(cache_dir, model_cache), cache_dir, threads=threads)
