"""A model's tokenizer, prepared exactly as FastEmbed prepares it, and its fingerprint.

The built-in models run in citeloom's own session (ADR 0019: a cold query would otherwise pay
``import fastembed``, which imports its image models and PIL), and these rules are a few lines
over ``tokenizers``. Vectors must not change for collections FastEmbed built, so the rules are
the same: truncate to the window in ``tokenizer_config.json`` (the stricter of
``model_max_length`` and ``max_length``), register the special tokens of
``special_tokens_map.json``, pad with the pad token's own id.
``tests/integration/test_embedder.py`` holds the two to equal vectors. The window and the
counting tokenizer serve every model's chunking, FastEmbed's included.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenizers import AddedToken, Tokenizer

from citeloom.domain.errors import EmbedderUnavailable


def tokenizer_fingerprint(tokenizer_dir: Path) -> str:
    """Identity of a tokenizer: the hash of its vocabulary and rules (tokenizer.json) and of
    its configuration, which holds the window (model_max_length)."""
    digest = hashlib.sha256()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        path = tokenizer_dir / name
        digest.update(path.read_bytes() if path.is_file() else b"")
    return f"wordpiece:{digest.hexdigest()[:12]}"


@dataclass(frozen=True)
class ModelTokenizer:
    """Encodes texts for the model: truncated to ``window``, not padded (batches pad)."""

    tokenizer: Tokenizer
    window: int  # tokens the model sees, special tokens included
    pad_id: int

    def encode(self, texts: list[str]) -> list[list[int]]:
        return [encoding.ids for encoding in self.tokenizer.encode_batch(texts)]


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _valid_context(value: Any) -> int | None:
    # transformers writes 1e30 for "unknown" and some repos a 0 or null: neither is a window
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= sys.maxsize:
        return None
    return value


def window_of(tokenizer_dir: Path) -> int:
    """The window the tokenizer files declare (FastEmbed's rule: the stricter of the two keys)."""
    config = _read_json(tokenizer_dir / "tokenizer_config.json")
    windows = [
        w
        for w in (_valid_context(config.get(k)) for k in ("model_max_length", "max_length"))
        if w is not None
    ]
    if not windows:
        raise EmbedderUnavailable(
            f"{tokenizer_dir / 'tokenizer_config.json'}: no window (model_max_length); set it "
            "to the number of tokens the model was trained for"
        )
    return min(windows)


def load_model_tokenizer(tokenizer_dir: Path) -> ModelTokenizer:
    path = tokenizer_dir / "tokenizer.json"
    if not path.is_file():
        raise EmbedderUnavailable(f"{path}: tokenizer file missing; reinstall citeloom")
    config = _read_json(tokenizer_dir / "tokenizer_config.json")
    window = window_of(tokenizer_dir)
    tokenizer = Tokenizer.from_file(str(path))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=window,
        direction=config.get("truncation_side") or truncation.get("direction", "right"),
    )
    special = _read_json(tokenizer_dir / "special_tokens_map.json")
    for value in special.values():
        for token in value if isinstance(value, list) else [value]:
            if isinstance(token, str):
                tokenizer.add_special_tokens([token])
            elif isinstance(token, dict):
                tokenizer.add_special_tokens([AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or config.get("pad_token")
    pad_id = padding.get("pad_id", _read_json(tokenizer_dir / "config.json").get("pad_token_id"))
    if pad_id is None and pad_token is not None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_id is None:
        raise EmbedderUnavailable(f"{tokenizer_dir}: the tokenizer files name no pad token")
    if (config.get("padding_side") or padding.get("direction", "right")) != "right":
        raise EmbedderUnavailable(f"{tokenizer_dir}: left padding is not supported")
    tokenizer.no_padding()  # batches are padded to their longest text by the embedder
    return ModelTokenizer(tokenizer, window, int(pad_id))


def load_counting_tokenizer(tokenizer_dir: Path) -> Tokenizer:
    """The same vocabulary without truncation or padding, for counting word pieces."""
    tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class ModelTokens:
    """What an embedder says from its model's tokenizer files, whichever runs the model: the
    window, the fingerprint and word-piece counts (the chunker, the write guard and the token
    budgets use them). Each embedder sets ``_dimensions`` once it has loaded the model."""

    _dimensions: int

    def __init__(self, model_id: str, tokenizer_dir: Path) -> None:
        self._model_id = model_id
        self._tokenizer_dir = tokenizer_dir
        self._window = window_of(tokenizer_dir)
        self._tokenizer_id = tokenizer_fingerprint(tokenizer_dir)
        self._counter: Tokenizer | None = None

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._window

    @property
    def tokenizer_id(self) -> str:
        return self._tokenizer_id

    @property
    def tokenizer_dir(self) -> Path:
        return self._tokenizer_dir

    def count_tokens(self, text: str) -> int:
        if self._counter is None:
            self._counter = load_counting_tokenizer(self._tokenizer_dir)
        return len(self._counter.encode(text, add_special_tokens=False).ids)
