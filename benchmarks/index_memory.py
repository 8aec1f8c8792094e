"""Index memory: resident memory and CPU around each step of storing one long document.

Stores one document's points into a throwaway Qdrant Edge index through the project's own
index (``QdrantIndex`` over ``EdgeEngine``) the way ingest does: ``replace_document`` (writes of
``batch_size`` points, the stale points deleted, a flush), then ``optimize``. Each engine call
is wrapped to print VmRSS after it, the highest VmRSS sampled while it ran (every 20 ms) and its
CPU seconds (this process, all threads). Issue 31 found the index stage taking an ingest of the
1,064-page book from 0.67 to 1.9 GB; this shows which step holds what.

The document: ``--conversion FILE``, a cached conversion (``ingest_throughput.py --large`` leaves
the book's under benchmarks/.work/throughput/var/cache/conversions/), or by default a made-up one
of ``--pages`` pages: three paragraphs of 60 words a page from a fixed vocabulary (about three
chunks a page, as the book), a page number in each page's footer, starting again every 76 pages
as the shared papers joined do. It is chunked with the project's chunker; the vectors are random
unit vectors of the model's 384 dimensions (what is stored, not what it means, sets the memory).
Run:

    .venv/bin/python benchmarks/index_memory.py [--pages 1064 | --conversion FILE]
        [--batch-size N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from citeloom.adapters.conversion.cache import from_json  # noqa: E402
from citeloom.adapters.embedding.models import resolve_model  # noqa: E402
from citeloom.adapters.qdrant.core import QdrantIndex  # noqa: E402
from citeloom.adapters.qdrant.edge_engine import EdgeEngine  # noqa: E402
from citeloom.adapters.wordpiece_chunker import WordPieceChunker  # noqa: E402
from citeloom.config import ChunkingConfig  # noqa: E402
from citeloom.domain.models import Block, BlockKind, ConvertedDocument, MetadataMatch  # noqa: E402
from citeloom.domain.page_labels import PageMarks  # noqa: E402
from citeloom.domain.records import index_points  # noqa: E402

MODEL = "fastembed/all-MiniLM-L6-v2-fp32"
DIMENSIONS = 384
PAPER_PAGES = 76  # the shared papers' pages, joined seven times into the book


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory in MB: all of it (VmRSS), or its ``RssAnon`` (heap) or
    ``RssFile`` (pages of mapped files: Qdrant's segments) part."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Sampler:
    """The highest VmRSS since the last ``take``, sampled every 20 ms on a thread."""

    def __init__(self) -> None:
        self.high = rss_mb()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            self.high = max(self.high, rss_mb())
            time.sleep(0.02)

    def take(self) -> float:
        time.sleep(0.05)  # one more sample after the step
        high, self.high = max(self.high, rss_mb()), rss_mb()
        return high


def made_up(pages: int) -> ConvertedDocument:
    """A long document of ordinary pages (see the module docstring)."""
    words = sorted(set((ROOT / "README.md").read_text(encoding="utf-8").split()))
    rng = random.Random(31)
    blocks = []
    for page in range(1, pages + 1):
        if page % PAPER_PAGES == 1:
            blocks.append(Block(f"Part {page // PAPER_PAGES + 1}", BlockKind.HEADING, page, 1))
        for _ in range(3):
            blocks.append(Block(" ".join(rng.choices(words, k=60)), BlockKind.TEXT, page))
    footers = tuple((p, str((p - 1) % PAPER_PAGES + 1)) for p in range(1, pages + 1))
    return ConvertedDocument(
        source_path="/made-up/book.pdf",
        sha256="b" * 64,
        title="A made-up book",
        page_count=pages,
        blocks=tuple(blocks),
        converter="made-up",
        page_marks=PageMarks(
            margin_lines=footers,
            page_words=(540,) * pages,
            page_openings=("Some body text.",) * pages,
        ),
    )


def watched(sampler: Sampler, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    def step(*args: Any, **kwargs: Any) -> Any:
        sampler.take()
        before, started = rss_mb(), cpu_s()
        result = call(*args, **kwargs)
        cpu, high = cpu_s() - started, sampler.take()
        print(
            f"  {name:<14} VmRSS {before:6.0f} -> {rss_mb():6.0f} MB (files "
            f"{rss_mb('RssFile'):4.0f}), highest {high:6.0f} MB, {cpu:6.2f} s CPU",
            flush=True,
        )
        return result

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1064)
    parser.add_argument("--conversion", type=Path, help="a cached conversion (JSON) to store")
    parser.add_argument("--batch-size", type=int, help="points a write (default: the engine's)")
    args = parser.parse_args()
    sampler = Sampler()
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.1f}")
    if args.conversion:
        document = from_json(json.loads(args.conversion.read_text(encoding="utf-8")))
    else:
        document = made_up(args.pages)
    chunking = ChunkingConfig()
    chunker = WordPieceChunker(
        resolve_model(MODEL, ROOT / "benchmarks" / ".work").tokenizer_dir,
        max_tokens=chunking.max_tokens,
        overlap_tokens=chunking.overlap_tokens,
        heading_context=chunking.heading_context,
    )
    chunks = chunker.chunk(document, "d" * 64)
    rng = random.Random(0)
    vectors = []
    for _ in chunks:
        vector = [rng.gauss(0.0, 1.0) for _ in range(DIMENSIONS)]
        norm = sum(v * v for v in vector) ** 0.5
        vectors.append([v / norm for v in vector])
    points = index_points(
        project="bench",
        document=document,
        match=MetadataMatch(reference=None, kind=None),
        chunks=chunks,
        vectors=vectors,
        embed_model=MODEL,
        ingest_id="bench",
        library="bench",
    )
    payload = sum(len(json.dumps(p.payload)) for p in points) / len(points)
    print(
        f"{document.page_count} pages, {len(points)} points, payload {payload:,.0f} bytes a point "
        f"(JSON); VmRSS {rss_mb():.0f} MB before the index"
    )
    with tempfile.TemporaryDirectory(prefix="citeloom-index-memory-") as folder:
        engine = EdgeEngine(Path(folder))
        if args.batch_size:
            engine.batch_size = args.batch_size
        for name in ("upsert", "delete_where", "flush", "optimize"):
            setattr(engine, name, watched(sampler, name, getattr(engine, name)))
        with QdrantIndex(engine) as index:
            index.ensure_collection("bench", MODEL, DIMENSIONS, project="bench")
            started = cpu_s()
            print(f"replace_document ({engine.batch_size} points a write):")
            index.replace_document("bench", "d" * 64, document.source_path, points)
            stage = cpu_s() - started
            print(f"  {stage:.2f} s CPU, {1000 * stage / len(points):.2f} ms a point")
            print("optimize:")
            index.optimize("bench")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB; load average (1 min) at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
