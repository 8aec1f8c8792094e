"""Where document and chunk identities are made.

A document is its bytes: the same file under another name is the same document, and an edited
file is a new one. A chunk id is a UUID5 over everything that makes the chunk what it is, so
re-ingesting an unchanged file rewrites the same points instead of adding copies, and a chunk
embedded by another model can never collide with this one.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from pathlib import Path

CHUNK_NAMESPACE = uuid.UUID("6f1c3c2e-8a0e-4f6e-9d7b-2b8f0c1e5a44")
DOC_ID_HEX_CHARS = 16


def sha256_of_file(path: Path, block_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(block_size):
            digest.update(block)
    return digest.hexdigest()


def doc_id_from_sha256(sha256: str) -> str:
    """64 bits of the content hash: short enough to read, collision-free for any library."""
    return sha256[:DOC_ID_HEX_CHARS]


def chunk_id(
    doc_id: str,
    section_path: Sequence[str],
    page_start: int | None,
    page_end: int | None,
    embed_model: str,
    index: int,
) -> str:
    key = "\x1f".join(
        [
            doc_id,
            "\x1e".join(section_path),
            f"{page_start}-{page_end}",
            embed_model,
            str(index),
        ]
    )
    return str(uuid.uuid5(CHUNK_NAMESPACE, key))
