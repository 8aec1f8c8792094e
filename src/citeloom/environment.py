"""The environment variables that are not citeloom's settings keys: secrets and where the
user's runtime folder is. Read here, apart from ``config``, so that a
command handed to a running ``citeloom serve`` can read them without importing
pydantic-settings: the hand-off must cost less than the work it saves."""

from __future__ import annotations

import os
from pathlib import Path

API_KEY_ENV = "CITELOOM_QDRANT_API_KEY"
SERVE_TOKEN_ENV = "CITELOOM_SERVE_TOKEN"  # citeloom serve's bearer token: a secret, never a file's


def serve_token_from_environment() -> str | None:
    """The bearer token ``citeloom serve`` requires and the CLI sends it (CITELOOM_SERVE_TOKEN)."""
    return os.environ.get(SERVE_TOKEN_ENV) or None


def citeloom_environment() -> dict[str, str]:
    """Every ``CITELOOM_*`` variable set, as set: a server answers for the CLI only when it
    runs with the same ones (``entrypoints/handoff.py``)."""
    return {k: v for k, v in os.environ.items() if k.upper().startswith("CITELOOM_")}


def runtime_dir() -> Path | None:
    """The user's runtime folder (XDG_RUNTIME_DIR), where a server announces itself."""
    folder = os.environ.get("XDG_RUNTIME_DIR")
    return Path(folder) if folder else None
