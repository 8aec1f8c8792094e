"""Models whose files are on this machine: a folder of the user's, or FastEmbed's cache.

citeloom runs any ONNX text model that is pooled by its first token or by the mean of its
tokens, given its folder: an ONNX file and the tokenizer files (``tokenizer.json``,
``tokenizer_config.json``, and ``special_tokens_map.json`` / ``config.json`` when the model has
them). FastEmbed keeps each model of its catalogue in a Hugging Face cache layout
(``models--<org>--<repo>/snapshots/<revision>/``) or, for its older archives, in
``fast-<name>/``; which repository holds which model, which ONNX file to load and how it is
pooled comes from a copy of FastEmbed's catalogue (``resources/fastembed_text_models.json``),
because importing FastEmbed costs a second and may download. Nothing here downloads: only
``fetch_with_fastembed`` does, when the user passed ``--allow-download``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from citeloom.domain.errors import EmbedderUnavailable
from citeloom.resources import FASTEMBED_CATALOGUE

Pooling = Literal["mean", "cls"]
FASTEMBED_PREFIX = "fastembed/"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
# ONNX files a model folder may hold, most likely first (FastEmbed's and Optimum's names)
ONNX_NAMES = ("model.onnx", "model_optimized.onnx", "onnx/model.onnx", "model_quantized.onnx")
INSTALL_FASTEMBED = 'pip install "fastembed>=0.7,<1"'


@dataclass(frozen=True)
class CatalogueEntry:
    """One FastEmbed text model: where FastEmbed keeps its files and how it pools them."""

    name: str  # FastEmbed's model name, e.g. "BAAI/bge-small-en-v1.5"
    hf: str  # the Hugging Face repository FastEmbed downloads it from
    model_file: str  # the ONNX file inside it
    dim: int
    pooling: Pooling

    @property
    def model_id(self) -> str:
        return FASTEMBED_PREFIX + self.name


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


@cache
def catalogue() -> dict[str, CatalogueEntry]:
    """FastEmbed's models citeloom can run, by lower-cased name (FastEmbed ignores case)."""
    data = json.loads(FASTEMBED_CATALOGUE.read_text(encoding="utf-8"))
    return {
        m["model"].lower(): CatalogueEntry(
            m["model"], m["hf"], m["model_file"], int(m["dim"]), m["pooling"]
        )
        for m in data["models"]
    }


def catalogue_entry(model_id: str) -> CatalogueEntry | None:
    """The catalogue's model a citeloom id names (``fastembed/<FastEmbed's name>``)."""
    if not model_id.startswith(FASTEMBED_PREFIX):
        return None
    return catalogue().get(model_id.removeprefix(FASTEMBED_PREFIX).lower())


def onnx_file(folder: Path, preferred: str | None = None) -> Path | None:
    """The ONNX file of a model folder: the catalogue's name, else a usual one."""
    for name in ([preferred] if preferred else []) + list(ONNX_NAMES):
        if (folder / name).is_file():
            return folder / name
    return None


def missing_files(folder: Path, preferred: str | None = None) -> list[str]:
    """What a model folder lacks to be run (empty: it is complete)."""
    if not folder.is_dir():
        return ["the folder itself"]
    missing = [name for name in TOKENIZER_FILES if not (folder / name).is_file()]
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


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def cached_folder(entry: CatalogueEntry, caches: tuple[Path, ...]) -> Path | None:
    """The folder FastEmbed keeps ``entry``'s files in, if any cache holds them complete."""
    repo = "models--" + entry.hf.replace("/", "--")
    legacy = "fast-" + entry.name.split("/")[-1]
    for cache_dir in caches:
        for child in _children(cache_dir):
            name = child.name.lower()
            if name == repo.lower():
                ref = child / "refs" / "main"
                main = ref.read_text(encoding="utf-8").strip() if ref.is_file() else None
                snapshots = _children(child / "snapshots")
                snapshots.sort(key=lambda s: s.name != main)  # the current revision first
                for snapshot in snapshots:
                    if not missing_files(snapshot, entry.model_file):
                        return snapshot
            elif name == legacy.lower() and not missing_files(child, entry.model_file):
                return child
    return None


def cached_models(caches: tuple[Path, ...]) -> list[tuple[CatalogueEntry, Path]]:
    """Every catalogue model whose files a cache holds."""
    found = []
    for entry in catalogue().values():
        folder = cached_folder(entry, caches)
        if folder is not None:
            found.append((entry, folder))
    return found


def fetch_with_fastembed(entry: CatalogueEntry, cache_dir: Path) -> Path:
    """Download a catalogue model into ``cache_dir`` with FastEmbed (``--allow-download``)."""
    try:
        from fastembed import TextEmbedding
    except ImportError as error:
        raise EmbedderUnavailable(
            f"downloading embedding model '{entry.model_id}' needs FastEmbed, which citeloom "
            f"does not install: {INSTALL_FASTEMBED}, then run the same command again"
        ) from error
    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        TextEmbedding(entry.name, cache_dir=str(cache_dir))
    except Exception as error:  # network and hub errors of every kind
        raise EmbedderUnavailable(
            f"downloading embedding model '{entry.model_id}' from {entry.hf} failed "
            f"({type(error).__name__}: {error}). Check the network, or copy the model's folder "
            "here and set [embedding] model_path to it"
        ) from error
    folder = cached_folder(entry, (cache_dir,))
    if folder is None:
        raise EmbedderUnavailable(
            f"FastEmbed downloaded '{entry.name}' but {cache_dir} holds no complete copy of it "
            f"({entry.model_file} and {', '.join(TOKENIZER_FILES)})"
        )
    return folder
