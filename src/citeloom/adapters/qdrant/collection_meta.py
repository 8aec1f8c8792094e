"""What a collection remembers about itself: the project that made it, the embedding model
and how BM25 was encoded.

The embedded engine has no collection metadata, so it lives in a JSON sidecar next to the
shard; a Qdrant server keeps the same dict in the collection's ``metadata``.

The BM25 languages are part of it because both adapters encode a collection's chunks and
queries with the languages it records (``languages_of``), never with what a caller asks for:
a collection cannot come to hold terms of two stemmings. The guard tells a caller configured
otherwise before anything is written or searched.

The project is part of it because two configs can name the same index (a folder, a lab's
server) and the same collection under different project names: without it, the second would
read the first's collection, write into it and drop it. A collection made before owners were
recorded has none: it is taken to be the one project's whose chunks it holds (``core``), and
the first project that writes to it records itself (``adopting``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from citeloom import __version__
from citeloom.adapters.bm25 import BM25_SETTINGS
from citeloom.domain.errors import (
    CollectionOwnerMismatch,
    EmbeddingModelMismatch,
    LanguagesMismatch,
)
from citeloom.domain.languages import DEFAULT_LANGUAGES, same_languages

META_FORMAT = 1


def new_meta(
    collection: str,
    embed_model: str,
    dimensions: int,
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    *,
    project: str,
) -> dict[str, Any]:
    bm25 = {key: value for key, value in BM25_SETTINGS.items() if key != "language"}
    return {
        "format": META_FORMAT,
        "collection": collection,
        "project": project,
        "embed_model": embed_model,
        "dimensions": dimensions,
        "bm25": {"languages": list(languages), **bm25},
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "created_by": f"citeloom {__version__}",
    }


def languages_of(meta: dict[str, Any] | None) -> tuple[str, ...]:
    """The languages a collection's BM25 terms were stemmed for. Collections made before
    languages existed recorded one ``language`` (English)."""
    bm25 = (meta or {}).get("bm25") or {}
    if bm25.get("languages"):
        return tuple(str(name) for name in bm25["languages"])
    return (str(bm25.get("language", DEFAULT_LANGUAGES[0])),)


def owner_of(meta: dict[str, Any] | None) -> str | None:
    """The project that made the collection; None for one made before owners were recorded."""
    owner = (meta or {}).get("project")
    return None if owner is None else str(owner)


def guard_owner(collection: str, owner: str | None, project: str) -> None:
    """Refuse ``project`` a collection of another project (None: no one's)."""
    if owner is not None and owner != project:
        raise CollectionOwnerMismatch(collection, owner, project)


def adopting(meta: dict[str, Any], project: str) -> dict[str, Any] | None:
    """What to record when ``project`` writes to a collection that has no owner yet (None:
    it has one)."""
    return {"project": project} if owner_of(meta) is None else None


def guard(
    collection: str,
    meta: dict[str, Any],
    embed_model: str,
    languages: Sequence[str] | None = None,
) -> None:
    """``languages``: None when the caller only cares about the model."""
    stored = meta.get("embed_model")
    if stored != embed_model:
        raise EmbeddingModelMismatch(collection, str(stored), embed_model)
    held = languages_of(meta)
    if languages is not None and not same_languages(held, languages):
        raise LanguagesMismatch(collection, held, tuple(languages))
