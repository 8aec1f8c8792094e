"""Query latency as the library grows: warm in-process p50/p95, and the cold `citeloom query`.

For each size it builds (once; reused on later runs) a project of that many chunks through the
project's own adapters (``index_points`` and the configured index's ``replace_document``, then
the same end-of-ingest optimisation as ``citeloom ingest``): real scientific text (the haystack
abstracts, repeated with a counter appended) and vectors that are the real vectors of those
abstracts (citeloom's default model; the ones in the benchmarks' embedding cache, or the first
2,000 embedded once) with a little noise (synthetic, so that no size needs hours of
embedding). The shared papers project that benchmarks/eval_papers.py builds is measured too.

Warm: one QueryService answering the judged paper queries (benchmarks/data/paper_queries.json)
in this process, as the MCP server and `citeloom serve` do. Cold: `citeloom query` started as a
new process per query, as a person at a terminal does; wall time and peak RSS. Run:

    .venv/bin/python benchmarks/query_latency.py [--chunks 10000,100000,300000] [--cold 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import corpora, paper_queries  # noqa: E402
from benchmarks.library import CachedEmbedder, write_config  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.config import DEFAULT_EMBED_MODEL  # noqa: E402
from citeloom.domain.ids import chunk_id  # noqa: E402
from citeloom.domain.models import Chunk, ConvertedDocument, IndexPoint, MetadataMatch  # noqa: E402
from citeloom.domain.records import build_payload  # noqa: E402
from citeloom.services.query import QueryOptions  # noqa: E402

CHUNKS_PER_DOCUMENT = 12  # about what a 10-page paper gives


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# the synthetic libraries' model: citeloom's default (latency hardly depends on which
# 384-dimension model made the vectors, but the query embeds with this one)
LATENCY_MODEL = DEFAULT_EMBED_MODEL
# distinct abstracts a synthetic library repeats at least (embedded once when not cached)
ABSTRACTS = 2000


def abstract_vectors(config: Path, least: int = ABSTRACTS) -> tuple[list[str], np.ndarray]:
    """The haystack abstracts and their real vectors for the project's model: those in the
    benchmarks' embedding cache (eval_haystack.py and eval_collections.py fill it), or, when it
    holds fewer than ``least`` of them, the first ``least`` embedded now and cached, so that a
    fresh clone builds what it needs."""
    settings = bootstrap.settings(config)
    inner = bootstrap.embedder(settings, settings.get_project("lat"))
    cached = CachedEmbedder(inner, settings.paths.cache_dir / "vectors")
    texts = [record.text or record.title for record in corpora.haystack()]
    known = cached.known(texts)
    if len(known) < least:
        print(f"  embedding {least} haystack abstracts with {inner.model_id} (once)", flush=True)
        known = texts[:least]
    return known, np.asarray(cached.embed_documents(known), dtype=np.float32)


def build(size: int, model_id: str) -> Path:
    """A project of ``size`` chunks, built once through the project's adapters."""
    folder = WORK / "latency" / str(size)
    config = write_config(folder, "lat", f"lat-{size}", None, model_id)
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        info = index.collection_info("lat-" + str(size))
        if info is not None and info.embed_model != model_id:
            sys.exit(
                f"{folder}: built with {info.embed_model}, not {model_id}: delete the folder "
                "to rebuild it with this model"
            )
        if info is not None and info.points >= size:
            index.optimize(f"lat-{size}")  # a library built by an older version: as ingest would
            return config
        texts, vectors = abstract_vectors(config)
        rng = np.random.default_rng(0)
        index.ensure_collection(f"lat-{size}", model_id, vectors.shape[1], project="lat")
        start = time.perf_counter()
        pending: list[IndexPoint] = []
        for first in range(0, size, CHUNKS_PER_DOCUMENT):
            n = min(CHUNKS_PER_DOCUMENT, size - first)
            doc_id = hashlib.sha256(f"lat-{first}".encode()).hexdigest()[:32]
            document = ConvertedDocument(f"lat/{first}.pdf", doc_id, None, n, (), "synthetic")
            points = []
            for i in range(n):
                j = first + i
                text = f"{texts[j % len(texts)]} ({j})"
                v = vectors[j % len(vectors)] + rng.normal(0, 0.02, vectors.shape[1])
                chunk = Chunk(doc_id, i, text, text, (), i + 1, i + 1, 0)
                payload = build_payload(
                    project="lat",
                    chunk=chunk,
                    document=document,
                    match=MetadataMatch(None, None),
                    embed_model=model_id,
                    ingest_id="latency",
                    chunk_total=n,
                )
                vector = (v / np.linalg.norm(v)).astype(np.float32).tolist()
                points.append(
                    IndexPoint(
                        chunk_id(doc_id, (), i + 1, i + 1, model_id, i), vector, text, payload
                    )
                )
            pending += points
            if len(pending) >= 5000 or first + n >= size:
                index.upsert_points(f"lat-{size}", pending)
                pending = []
            if first and first % 20_000 < CHUNKS_PER_DOCUMENT:
                print(f"  {first}/{size} chunks ({time.perf_counter() - start:.0f} s)", flush=True)
        index.optimize(f"lat-{size}")  # as ingest does at the end of a run
        print(f"  built {size} chunks in {time.perf_counter() - start:.0f} s", flush=True)
    finally:
        index.close()
    return config


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def warm(
    config: Path, project: str, queries: list[str], repeat: int
) -> tuple[float, float, float, float]:
    """p50 and p95 wall ms, CPU ms per query (all threads, the engine's too), first query s."""
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    start = time.perf_counter()
    service = bootstrap.query_service(settings, project, index)
    service.search(queries[0])
    first = time.perf_counter() - start
    timings = []
    cpu = cpu_seconds()
    try:
        for _ in range(repeat):
            for query in queries:
                t = time.perf_counter()
                service.search(query, QueryOptions())
                timings.append((time.perf_counter() - t) * 1000)
        cpu = (cpu_seconds() - cpu) * 1000 / len(timings)
    finally:
        index.close()
    return percentile(timings, 0.5), percentile(timings, 0.95), cpu, first


# Starts each `citeloom query` from a small process: a child's peak RSS counts the pages it
# shared with its parent when it was forked, and this benchmark's own process is large.
LAUNCHER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(json.dumps({"wall": time.perf_counter() - t, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_mb": usage.ru_maxrss / 1024, "status": status}))
"""


def cold(config: Path, project: str, queries: list[str]) -> tuple[float, float, float]:
    """Median wall and CPU seconds and the largest peak RSS (MB) of `citeloom query` runs."""
    cli = str(Path(sys.executable).with_name("citeloom"))
    walls, cpus, peaks = [], [], []
    for query in queries:
        command = [cli, "query", query, "-p", project, "-c", str(config), "--json"]
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, *command], capture_output=True, text=True, check=True
        )
        run = json.loads(launched.stdout)
        if run["status"]:
            sys.exit(f"citeloom query failed (status {run['status']}) on {config}")
        walls.append(run["wall"])
        cpus.append(run["cpu"])
        peaks.append(run["rss_mb"])
    return statistics.median(walls), statistics.median(cpus), max(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--chunks", default="", help="sizes to build and measure, e.g. 10000,100000"
    )
    parser.add_argument("--repeat", type=int, default=1, help="warm passes over the query set")
    parser.add_argument("--cold", type=int, default=5, help="CLI runs per size for the cold start")
    args = parser.parse_args()
    queries = [q["query"] for q in paper_queries.load()]
    targets: list[tuple[str, Path, str]] = []
    papers = WORK / "papers" / "citeloom.toml"
    if papers.exists():
        targets.append(("shared papers", papers, "papers"))
    for size in (int(s) for s in args.chunks.split(",") if s):
        targets.append((f"{size} chunks", build(size, LATENCY_MODEL), "lat"))
    if not targets:
        sys.exit("nothing to measure: run benchmarks/eval_papers.py or pass --chunks")
    print(f"\nload average before measuring: {os.getloadavg()[0]:.1f}")
    print(
        f"{'library':18} {'chunks':>8} {'warm p50':>9} {'p95':>7} {'CPU/q':>7} {'first':>7} "
        f"{'cold median':>12} {'cold CPU':>9} {'cold peak RSS':>14}"
    )
    for name, config, project in targets:
        settings = bootstrap.settings(config)
        index = bootstrap.index(settings)
        try:
            info = index.collection_info(settings.get_project(project).collection)
        finally:
            index.close()
        p50, p95, cpu, first = warm(config, project, queries, args.repeat)
        wall, cold_cpu, peak = cold(config, project, queries[: args.cold])
        print(
            f"{name:18} {info.points if info else 0:8d} {p50:7.1f}ms {p95:5.1f}ms {cpu:5.1f}ms "
            f"{first:6.2f}s {wall:11.2f}s {cold_cpu:8.2f}s {peak:11.0f} MB",
            flush=True,
        )
    t = time.perf_counter()
    subprocess.run(
        [str(Path(sys.executable).with_name("citeloom")), "query", "--help"],
        check=True,
        capture_output=True,
    )
    print(
        f"\n`citeloom query --help`: {time.perf_counter() - t:.2f} s; "
        f"this process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
