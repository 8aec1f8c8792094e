"""FastEmbed's text models: its catalogue, and its files found by FastEmbed itself.

Every model that is not one of the two built-in MiniLMs runs through FastEmbed (ADR 0019).
Which models exist, which repository and files each one has (its ONNX file and the external
data some need beside it) come from ``TextEmbedding.list_supported_models()``; where a model's
files are in a cache is what FastEmbed answers when asked with ``local_files_only`` (the Hugging
Face layout, FastEmbed's older archives, its checks of sizes). A folder of the user's is given
to FastEmbed as ``specific_model_path``: under an id FastEmbed does not know, as a custom model
registered by how it is run.

Importing FastEmbed costs about 0.4 s of CPU (its package imports its image models too), so
each function imports it itself: a project on a built-in model never loads it. Nothing
downloads unless ``download`` is called (``--allow-download``).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from citeloom.adapters.embedding.local_models import TOKENIZER_FILES, Pooling
from citeloom.domain.errors import EmbedderUnavailable

if TYPE_CHECKING:
    from fastembed import TextEmbedding

FASTEMBED_PREFIX = "fastembed/"
# FastEmbed's names of the custom models folders are registered under (never a catalogue name)
FOLDER_PREFIX = "citeloom-folder/"
_registering = threading.Lock()


@dataclass(frozen=True)
class CatalogueEntry:
    """One FastEmbed text model: its name, the repository it comes from and the files it needs."""

    name: str  # FastEmbed's model name, e.g. "BAAI/bge-small-en-v1.5"
    hf: str  # the Hugging Face repository FastEmbed downloads it from ("" for none)
    model_file: str  # the ONNX file inside it
    additional_files: tuple[str, ...]  # files the ONNX file needs beside it (external data)

    @property
    def model_id(self) -> str:
        return FASTEMBED_PREFIX + self.name

    @property
    def files(self) -> tuple[str, ...]:
        return (self.model_file, *self.additional_files, *TOKENIZER_FILES)


@cache
def catalogue() -> dict[str, CatalogueEntry]:
    """FastEmbed's text models, by lower-cased name (FastEmbed ignores case)."""
    from fastembed import TextEmbedding

    return {
        m["model"].lower(): CatalogueEntry(
            m["model"],
            m["sources"].get("hf") or "",
            m["model_file"],
            tuple(m.get("additional_files") or ()),
        )
        for m in TextEmbedding.list_supported_models()
        if not m["model"].startswith(FOLDER_PREFIX)
    }


def catalogue_entry(model_id: str) -> CatalogueEntry | None:
    """The catalogue's model a citeloom id names (``fastembed/<FastEmbed's name>``)."""
    if not model_id.startswith(FASTEMBED_PREFIX):
        return None
    return catalogue().get(model_id.removeprefix(FASTEMBED_PREFIX).lower())


@contextmanager
def _quiet() -> Iterator[None]:
    """FastEmbed logs (loguru) every cache it does not find a model in as an error, and warns
    about some models whenever one is named; looking for models in several caches is expected
    to miss, and a miss is reported in citeloom's own words."""
    from loguru import logger

    logger.disable("fastembed")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.enable("fastembed")


def _model_dir(model: TextEmbedding) -> Path:
    """The folder FastEmbed resolved the model's files to (tokenizer files included: the
    chunker counts word pieces with them). FastEmbed keeps it as ``_model_dir`` of its model
    object and gives it no public name; tests/integration/test_model_choice.py would fail
    first if that changed."""
    return Path(model.model._model_dir)  # type: ignore[attr-defined]


def cached_folder(entry: CatalogueEntry, caches: tuple[Path, ...]) -> tuple[Path, Path] | None:
    """The first cache FastEmbed finds ``entry`` complete in, and the model's folder there.
    Nothing loads (``lazy_load``) and nothing downloads (``local_files_only``)."""
    from fastembed import TextEmbedding

    for cache_dir in filter(_holds_files, caches):
        try:
            with _quiet():
                model = TextEmbedding(
                    entry.name, cache_dir=str(cache_dir), local_files_only=True, lazy_load=True
                )
        except Exception:  # FastEmbed's and the hub's errors: not in this cache
            continue
        return cache_dir, _model_dir(model)
    return None


def _holds_files(cache_dir: Path) -> bool:
    """Whether a cache folder has anything in it (FastEmbed would create a missing one)."""
    try:
        return any(cache_dir.iterdir())
    except OSError:
        return False


def cached_models(caches: tuple[Path, ...]) -> list[tuple[CatalogueEntry, Path]]:
    """Every catalogue model FastEmbed finds complete in a cache (FastEmbed is not even
    imported when every cache folder is missing or empty)."""
    if not any(map(_holds_files, caches)):
        return []
    found = []
    for entry in catalogue().values():
        where = cached_folder(entry, caches)
        if where is not None:
            found.append((entry, where[1]))
    return found


def download(entry: CatalogueEntry, cache_dir: Path) -> tuple[Path, Path]:
    """Let FastEmbed fetch ``entry`` into ``cache_dir`` (``--allow-download`` only)."""
    from fastembed import TextEmbedding

    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        TextEmbedding(entry.name, cache_dir=str(cache_dir), lazy_load=True)
    except Exception as error:  # network and hub errors of every kind
        raise EmbedderUnavailable(
            f"downloading embedding model '{entry.model_id}' from {entry.hf} failed "
            f"({type(error).__name__}: {error}). Check the network, or copy the model's folder "
            "here and set [embedding] model_path to it"
        ) from error
    found = cached_folder(entry, (cache_dir,))
    if found is None:
        raise EmbedderUnavailable(
            f"FastEmbed downloaded '{entry.name}' but {cache_dir} holds no complete copy of it "
            f"({', '.join(entry.files)})"
        )
    return found


def folder_model_name(model_file: str, pooling: Pooling) -> str:
    """FastEmbed's name for a folder of the user's whose id it does not know: a custom model
    registered once per way of running one (its pooling and ONNX file; the files themselves
    come from ``specific_model_path``, so one name serves every such folder). The dimension
    FastEmbed records for it is not used: the embedder reads it from a vector."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = f"{FOLDER_PREFIX}{pooling}-pooled/{model_file}"
    with _registering:
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if name.lower() not in known:
            TextEmbedding.add_custom_model(
                name,
                pooling=PoolingType.CLS if pooling == "cls" else PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf=name),
                dim=0,
                model_file=model_file,
            )
    return name
