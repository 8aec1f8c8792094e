"""``ingest --jobs 2`` converts in worker processes and stores what ``--jobs 1`` stores: the
same chunk ids, pages, page labels and citekeys, with a bad PDF failing alone (real Docling
in the workers, the real embedder and Qdrant Edge, through the CLI)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, PAPERS, ROOT, write_config

pytestmark = [pytest.mark.real, pytest.mark.shared]

NAMES = (
    "grobid_ZFN-A-054-0304-0272.pdf",  # printed pages 272-273
    "grobid_1001._0908.0054.pdf",
    "grobid_Wang-paperAVE2008.pdf",
)


def stored(index_dir: Path) -> dict[str, tuple]:
    """Chunk id -> what a citation shows of it, read from the shard itself."""
    from qdrant_edge import EdgeShard, ScrollRequest

    shard = EdgeShard.load(str(index_dir / "proj-papers" / "shard"))
    try:
        records, _ = shard.scroll(ScrollRequest(limit=10_000, with_payload=True))
    finally:
        shard.close()
    return {
        str(r.id): (
            r.payload["zotero"]["citekey"],
            r.payload["doc"]["page_start"],
            r.payload["doc"]["page_end"],
            json.dumps(r.payload["doc"]["page_labels"]),
            tuple(r.payload["doc"]["section_path"]),
            r.payload["fulltext"],
        )
        for r in records
    }


def ingest(folder: Path, jobs: int, bad: Path) -> tuple[dict, dict[str, str], int]:
    folder.mkdir()
    config = write_config(folder, ROOT / "tests" / "data" / "papers.csl.json")
    files = [*(str(PAPERS / n) for n in NAMES), str(bad)]
    options = ["-p", "papers", "-c", str(config), "--jobs", str(jobs), "--json"]
    done = subprocess.run(
        [CITELOOM, "ingest", *files, *options],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
    )
    report = json.loads(done.stdout)
    statuses = {Path(d["path"]).name: d["status"] for d in report["documents"]}
    return stored(folder / "var" / "qdrant"), statuses, done.returncode


def test_two_workers_store_the_chunks_one_process_stores(tmp_path):
    bad = tmp_path / "damaged.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    two, statuses_two, code_two = ingest(tmp_path / "two", 2, bad)
    one, statuses_one, code_one = ingest(tmp_path / "one", 1, bad)
    expected = {**dict.fromkeys(NAMES, "ingested"), "damaged.pdf": "failed"}
    assert statuses_two == statuses_one == expected
    assert code_two == code_one == 1  # some documents failed, the rest are stored
    assert len(two) >= 10
    assert two == one
    assert len({c for c, *_ in two.values() if c}) == 3  # each paper matched to its entry
