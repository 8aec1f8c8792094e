"""Disk space the embedded index (Qdrant Edge) takes per chunk, against the estimate each write
is checked with before it is made (``adapters/qdrant/edge_engine.py``: a disk that fills up in
the middle of a write kills the process with SIGBUS, so writes that may not fit are refused).

Writes documents of realistic chunks (about 1,200 characters of English each, 384-dimension
vectors, the project's own payload from ``index_points``) into a fresh shard through the
project's adapter, and prints after each batch the blocks the shard folder holds on disk, the
bytes a chunk took, and what the write check estimated for it. Run:

    .venv/bin/python benchmarks/index_disk_use.py [--documents 200] [--chunks 20] [--dir DIR]

``--dir`` puts the shard on another file system (for example a loop-mounted ext4 image, or a
tmpfs, where the engine's memory maps are filled in when a shard is opened).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from citeloom.adapters.qdrant.core import QdrantIndex  # noqa: E402
from citeloom.adapters.qdrant.edge_engine import EdgeEngine, bytes_for  # noqa: E402
from citeloom.domain.models import Chunk, ConvertedDocument, MetadataMatch  # noqa: E402
from citeloom.domain.records import index_points  # noqa: E402

TEXT = (
    "restored tidal marshes accreted sediment faster than the natural reference sites while "
    "the organic carbon density of the new sediment was lower and net burial exceeded that of "
    "the reference marshes in every year of the study cores were dated with lead isotopes"
)


def allocated(folder: Path) -> int:
    """Bytes the folder's files occupy on disk (blocks, not apparent sizes: the engine's
    files are sparse)."""
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def document(number: int, chunks: int, rng: random.Random) -> tuple[str, list]:
    doc_id = f"{number:016x}"
    converted = ConvertedDocument(
        source_path=f"/library/paper{number:05d}.pdf",
        sha256=f"{number:064x}",
        title=f"Paper {number}",
        page_count=chunks // 2 + 1,
        blocks=(),
        converter="benchmark",
    )
    pieces = []
    for index in range(chunks):
        words = TEXT.split(" ")
        text = " ".join(rng.choice(words) for _ in range(180))  # ~1,200 characters
        pieces.append(
            Chunk(doc_id, index, text, text, ("2 Methods",), index // 2 + 1, index // 2 + 1, 250)
        )
    vectors = []
    for _ in pieces:
        raw = [rng.gauss(0.0, 1.0) for _ in range(384)]
        norm = sum(v * v for v in raw) ** 0.5
        vectors.append([v / norm for v in raw])
    points = index_points(
        project="bench",
        document=converted,
        match=MetadataMatch(None, None, problem="MetadataMissing"),
        chunks=pieces,
        vectors=vectors,
        embed_model="fastembed/all-MiniLM-L6-v2",
        ingest_id="benchmark",
        library="",
    )
    return doc_id, points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=20, help="chunks per document")
    parser.add_argument("--dir", type=Path, default=None, help="where to put the shard")
    args = parser.parse_args()
    rng = random.Random(12)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        index_dir = Path(tmp)
        index = QdrantIndex(EdgeEngine(index_dir, reserve_bytes=0))
        index.ensure_collection("bench", "fastembed/all-MiniLM-L6-v2", 384, project="bench")
        created = allocated(index_dir)
        print(f"new shard: {created / 2**20:.2f} MB on disk")
        print("documents  chunks  on disk MB  bytes/chunk (batch)  estimate/chunk  estimate/real")
        before, estimated = created, 0
        step = max(1, args.documents // 10)
        for number in range(1, args.documents + 1):
            doc_id, points = document(number, args.chunks, rng)
            estimated += bytes_for(points)
            index.replace_document("bench", doc_id, points[0].payload["source"]["path"], points)
            if number % step == 0:
                now = allocated(index_dir)
                chunks = step * args.chunks
                real = (now - before) / chunks
                print(
                    f"{number:9d}  {number * args.chunks:6d}  {now / 2**20:10.2f}  "
                    f"{real:19.0f}  {estimated / chunks:14.0f}  "
                    f"{estimated / chunks / real if real > 0 else float('inf'):13.2f}"
                )
                before, estimated = now, 0
        index.close()
        print(f"after close: {allocated(index_dir) / 2**20:.2f} MB on disk")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
