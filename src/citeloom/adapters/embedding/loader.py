"""One call that loads any embedding model: the built-in MiniLMs with citeloom's own session,
every other one through FastEmbed (ADR 0019). FastEmbed is imported only for the latter. An
ingest's documents may be embedded another way than queries: the fp32 MiniLM in bfloat16 where
the CPU multiplies it natively (ADR 0031)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from citeloom.adapters.embedding.fastembed_embedder import FastEmbedEmbedder
from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.adapters.embedding.models import FP32_ID, FastEmbedModel, model_spec, resolve_model
from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

if TYPE_CHECKING:
    from citeloom.adapters.embedding.bf16_minilm import Bf16MiniLM

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


DocumentPrecision = Literal["auto", "fp32"]


def load_document_embedder(
    model_id: str,
    cache_dir: Path,
    sources: ModelSources | None = None,
    threads: int | None = None,
    precision: DocumentPrecision = "auto",
) -> LoadedEmbedder | Bf16MiniLM:
    """What an ingest embeds its chunks with: the fp32 MiniLM in bfloat16 when ``precision`` is
    "auto" and this CPU multiplies bfloat16 natively (this imports torch, which the rules PDF
    pipeline keeps out otherwise), else the model as ``load_embedder`` loads it. The fp32
    export is made all the same, so the queries that follow start without torch."""
    if precision == "auto" and model_id == FP32_ID:
        from citeloom.adapters.embedding import bf16_minilm
        from citeloom.adapters.embedding.fp32_export import weights_dir

        if bf16_minilm.runs_natively():
            spec = model_spec(model_id)
            spec.onnx_file(cache_dir, sources.model_cache if sources else None)
            return bf16_minilm.Bf16MiniLM(model_id, weights_dir(), spec.tokenizer_dir, threads)
    return load_embedder(model_id, cache_dir, sources, threads)
