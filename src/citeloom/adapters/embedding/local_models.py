"""Where a model that is not built in may be: a folder of the user's, or FastEmbed's caches.

A folder (``[embedding] model_path``) holds an ONNX file and the tokenizer files
(``tokenizer.json``, ``tokenizer_config.json``, and ``special_tokens_map.json`` / ``config.json``
when the model has them); what it lacks is said before FastEmbed is asked to load it, in words
naming the folder. FastEmbed's caches are searched by FastEmbed itself
(``fastembed_models``); this module only says which folders they are. Nothing here imports
FastEmbed or downloads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Pooling = Literal["mean", "cls"]
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
# ONNX files a model folder may hold, most likely first (FastEmbed's and Optimum's names)
ONNX_NAMES = ("model.onnx", "model_optimized.onnx", "onnx/model.onnx", "model_quantized.onnx")


@dataclass(frozen=True)
class ModelSources:
    """Where a model's files may be: ``model_path`` (one model folder of the user's) and
    FastEmbed cache folders (the first is where ``--allow-download`` puts new models)."""

    model_path: Path | None = None
    fastembed_caches: tuple[Path, ...] = ()
    allow_download: bool = False
    # this user's model cache, where a built-in model exported on first use (the fp32 MiniLM)
    # is kept for every project (None: in the project's cache_dir)
    model_cache: Path | None = None


def default_fastembed_caches(
    cache_dir: Path, fastembed_home: Path | None = None
) -> tuple[Path, ...]:
    """FastEmbed's own cache (``fastembed_home``: the settings read ``FASTEMBED_CACHE_PATH``),
    after citeloom's ``cache_dir/fastembed``, where downloads go."""
    homes = [] if fastembed_home is None else [fastembed_home]
    return tuple(dict.fromkeys([cache_dir / "fastembed", *homes]))


def onnx_file(folder: Path, preferred: str | None = None) -> Path | None:
    """The ONNX file of a model folder: the catalogue's name, else a usual one."""
    for name in ([preferred] if preferred else []) + list(ONNX_NAMES):
        if (folder / name).is_file():
            return folder / name
    return None


def missing_files(
    folder: Path, preferred: str | None = None, additional: tuple[str, ...] = ()
) -> list[str]:
    """What a model folder lacks to be run (empty: it is complete). ``additional``: files the
    ONNX file needs beside it (its external data, as FastEmbed's catalogue lists them)."""
    if not folder.is_dir():
        return ["the folder itself"]
    missing = [name for name in TOKENIZER_FILES if not (folder / name).is_file()]
    missing += [name for name in additional if not (folder / name).is_file()]
    if onnx_file(folder, preferred) is None:
        missing.insert(0, preferred or "an ONNX file (model.onnx)")
    return missing


def pooling_of(folder: Path, default: Pooling) -> Pooling:
    """A sentence-transformers folder says how it pools (``1_Pooling/config.json``)."""
    path = folder / "1_Pooling" / "config.json"
    try:
        config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default
    if config.get("pooling_mode_cls_token"):
        return "cls"
    if config.get("pooling_mode_mean_tokens"):
        return "mean"
    return default
