"""Converting the next document while the current one is embedded changes nothing a user can
see: a document ingested twice, with and without the conversion thread, gets the same chunk
ids and the same vectors (real converter, embedder and engine)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, write_config

pytestmark = pytest.mark.real


def stored_points(index_dir: Path) -> dict[str, tuple[list[float], str]]:
    """Chunk id -> (dense vector, text), read from the shard itself."""
    from qdrant_edge import EdgeShard, ScrollRequest

    shard = EdgeShard.load(str(index_dir / "proj-papers" / "shard"))
    try:
        records, _ = shard.scroll(ScrollRequest(limit=10_000, with_payload=True, with_vector=True))
    finally:
        shard.close()
    return {str(r.id): (list(r.vector["dense"]), r.payload["fulltext"]) for r in records}


def ingest(folder: Path, papers: Path, convert_ahead: int) -> dict[str, tuple[list[float], str]]:
    from citeloom import bootstrap
    from citeloom.config import load_settings

    refs = folder / "refs.json"
    refs.write_text("[]")
    settings = load_settings(write_config(folder, refs))
    index = bootstrap.index(settings)
    try:
        service = bootstrap.ingest_service(settings, "papers", index)
        service.convert_ahead = convert_ahead
        report = service.run([papers])
    finally:
        index.close()
    assert [d.status for d in report.documents] == ["ingested"] * 3
    return stored_points(folder / "var" / "qdrant")


def test_a_document_ingested_twice_keeps_its_chunk_ids_and_vectors(tmp_path):
    papers = tmp_path / "papers"
    shutil.copytree(EXAMPLES, papers)
    (tmp_path / "ahead").mkdir()
    (tmp_path / "one-thread").mkdir()
    ahead = ingest(tmp_path / "ahead", papers, convert_ahead=1)
    one_thread = ingest(tmp_path / "one-thread", papers, convert_ahead=0)
    assert len(ahead) >= 10
    assert ahead == one_thread  # same ids, bit-identical vectors, same texts
