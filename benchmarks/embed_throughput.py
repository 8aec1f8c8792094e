"""Embedding speed, CPU time and memory on real chunks of the shared papers, and parity.

Converts ../shared/corpus/papers/ (read in place; conversions cached under
benchmarks/.work/embed) and cuts them with the project's chunker into ~250-token chunks, then
embeds them per document under each setting, each in a fresh process (peak RSS is per process):
the model (int8 file, fp32 export, the fp32 weights in bfloat16 as ingest runs them where the
CPU has bfloat16 units, and the int8 file through FastEmbed as citeloom ran it
before ADR 0007), how texts reach the model (``pipeline``: calls of 16 chunks
in document order, as services/pipeline.py made them before ADR 0009; ``document``: one call
per document, as it makes them now, so the embedder sorts a whole document's chunks by length
before batching), the batch size, the
intra-op threads, onnxruntime's memory arena and thread spinning. Prints chunks/s, wall and CPU
time (user+sys), peak RSS, and a parity table: cosine min/mean of each model against the
reference (the PyTorch model, mean-pooled, window 256) and of the int8 path against FastEmbed
on the same ONNX file, on all chunks and on long ones (>= 200 tokens). Run:

    .venv/bin/python benchmarks/embed_throughput.py [--repeat 2] [--quick] [--papers N]
        [--no-parity]

``--quick`` measures only the default of each model (and FastEmbed); ``--papers N`` embeds the
first N papers only (a quicker sweep of the settings).

The fp32 model needs its weights (docs/configuration.md, "Embedding models"); it is exported
once into the cache on first use.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "corpus" / "papers"
WORK = ROOT / "benchmarks" / ".work" / "embed"
CHUNKS = WORK / "chunks.json"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

INT8, FP32 = "fastembed/all-MiniLM-L6-v2", "fastembed/all-MiniLM-L6-v2-fp32"
BEFORE = "FastEmbed"  # the int8 file through FastEmbed, as citeloom embedded before ADR 0007
BF16 = "fp32-bf16"  # the fp32 model's weights in bfloat16 with torch, as ingest runs it (ADR 0031)

# (model, feed, batch size, threads, arena, spinning); the first of each model is the default
# (batch None: the embedder's own, one text per thread)
SETTINGS: list[tuple[str, str, int | None, int | None, bool, bool]] = [
    (BEFORE, "pipeline", 16, None, True, True),
    *(
        (model, *variant)
        for model in (INT8, FP32)
        for variant in (
            ("document", None, None, True, False),
            ("pipeline", None, None, True, False),
            ("document", None, None, False, False),
            ("document", None, None, True, True),
            ("document", 1, None, True, False),
            ("document", 4, None, True, False),
            ("document", 8, None, True, False),
            ("document", 16, None, True, False),
            ("document", None, 1, True, False),
            ("document", 16, 1, True, False),
        )
    ),
    # bfloat16: batch None is bf16_minilm.TEXTS_PER_RUN (arena and spinning are onnxruntime's)
    *((BF16, "document", batch, None, True, False) for batch in (None, 4, 16, 32)),
]


def config_file() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    config = WORK / "citeloom.toml"
    references = ROOT / "tests" / "data" / "papers.csl.json"
    config.write_text(
        f'[project."papers"]\ncollection = "bench-embed"\nreferences_json = "{references}"\n',
        encoding="utf-8",
    )
    return config


def documents() -> list[list[str]]:
    """Each shared paper's chunk texts (what is embedded: headings + text), built once."""
    if CHUNKS.is_file():
        return json.loads(CHUNKS.read_text(encoding="utf-8"))
    from citeloom import bootstrap
    from citeloom.domain.ids import sha256_of_file

    settings = bootstrap.settings(config_file())
    project = settings.get_project("papers")
    chunker = bootstrap.chunker(settings, bootstrap.embedder(settings, project))
    converter = bootstrap.converter(settings)
    docs = []
    for path in sorted(PAPERS.glob("*.pdf")):
        converted = converter.convert(path, sha256_of_file(path))
        docs.append([c.embed_text for c in chunker.chunk(converted, path.stem)])
    CHUNKS.write_text(json.dumps(docs), encoding="utf-8")
    return docs


def peak_rss_mb() -> float:
    """This process's own peak (VmHWM): ru_maxrss would carry the parent's over fork and exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def user_models() -> Path:
    """Where citeloom finds this user's fp32 export: the model cache the settings read."""
    from citeloom.config import Environment

    return Environment().model_cache


class FastEmbedAsBefore:
    """The adapter citeloom had before: FastEmbed's TextEmbedding, batches of 16."""

    def __init__(self) -> None:
        from citeloom.adapters.embedding.models import model_spec

        spec = model_spec(INT8)
        self.model = fastembed_model(spec, spec.onnx_file(WORK / "var" / "cache", None))

    def embed_documents(self, texts: list[str]) -> list[Any]:
        return list(self.model.embed(texts, batch_size=16))


def measure_one(setting: str) -> dict[str, Any]:
    """One setting, in this (fresh) process: load, warm up on one text, embed everything."""
    model, feed, batch, threads, arena, spinning, papers = json.loads(setting)
    from citeloom.adapters.embedding import onnx_embedder, sessions

    default_options = sessions.session_options

    def options(threads: int | None) -> Any:
        chosen = default_options(threads)
        chosen.enable_cpu_mem_arena = arena
        chosen.add_session_config_entry("session.intra_op.allow_spinning", str(int(spinning)))
        return chosen

    sessions.session_options = options  # type: ignore[assignment]
    docs = documents()[:papers]
    embedder: Any = (
        FastEmbedAsBefore()
        if model == BEFORE
        else bf16_embedder(batch, threads)
        if model == BF16
        else onnx_embedder.OnnxEmbedder.load(
            model,
            WORK / "var" / "cache",
            threads=threads,
            batch_size=batch,
            model_cache=user_models(),
        )
    )
    embedder.embed_documents([docs[0][0]])
    loaded_rss = peak_rss_mb()
    wall, cpu = time.perf_counter(), cpu_seconds()
    count = 0
    for texts in docs:
        calls = [texts]
        if feed == "pipeline":
            calls = [texts[i : i + 16] for i in range(0, len(texts), 16)]
        for call in calls:
            count += len(embedder.embed_documents(call))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {
        "chunks": count,
        "wall": wall,
        "cpu": cpu,
        "rss": peak_rss_mb(),
        "loaded_rss": loaded_rss,
    }


class NoBf16(Exception):
    """This CPU has no bfloat16 units: ingest embeds in fp32 here, the bf16 rows are skipped."""


def bf16_embedder(batch: int | None, threads: int | None) -> Any:
    from citeloom.adapters.embedding import bf16_minilm
    from citeloom.adapters.embedding.fp32_export import weights_dir
    from citeloom.resources import MINILM_DIR

    if not bf16_minilm.runs_natively():
        raise NoBf16
    embedder = bf16_minilm.Bf16MiniLM(FP32, weights_dir(), MINILM_DIR, threads)
    embedder.batch_size = batch or embedder.batch_size
    return embedder


def throughput(repeat: int, quick: bool, papers: int) -> None:
    docs = documents()[:papers]
    chunks = sum(len(d) for d in docs)
    print(f"{len(docs)} papers, {chunks} chunks; {os.cpu_count()} CPUs, load {os.getloadavg()}")
    print(
        "| model | feed | batch | threads | arena | spin | chunks/s | wall s | CPU s | "
        "peak RSS MB (after load) | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    defaults = [s for s in SETTINGS if s[1:] == ("document", None, None, True, False)]
    for setting in [SETTINGS[0], *defaults] if quick else SETTINGS:
        runs = []
        for _ in range(repeat):
            out = subprocess.run(
                [sys.executable, __file__, "--one", json.dumps([*setting, papers])],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        if "skipped" in runs[0]:
            print(f"| {setting[0]} | skipped: {runs[0]['skipped']} |")
            continue
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        rss = max(r["rss"] for r in runs)
        loaded = max(r["loaded_rss"] for r in runs)
        model, feed, batch, threads, arena, spinning = setting
        print(
            f"| {model.split('/')[-1]} | {feed} | {batch or 'a thread'} | {threads or 'default'} | "
            f"{'on' if arena else 'off'} | {'on' if spinning else 'off'} | "
            f"{chunks / wall:.1f} | {wall:.1f} | {cpu:.1f} | {rss:.0f} ({loaded:.0f}) | "
            f"{os.getloadavg()[0]:.1f} |",
            flush=True,
        )
    print(f"median of {repeat} runs each (peak RSS: the largest); load after: {os.getloadavg()}")


def fastembed_model(spec: Any, onnx_path: Path) -> Any:
    """FastEmbed on the same ONNX file and tokenizer files (how citeloom embedded before)."""
    import shutil
    import tempfile

    from fastembed import TextEmbedding

    with tempfile.TemporaryDirectory() as tmp:  # FastEmbed loads everything when it starts
        folder = Path(tmp)
        names = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
        for name in (*names, "config.json"):
            shutil.copyfile(spec.tokenizer_dir / name, folder / name)
        (folder / "model.onnx").symlink_to(onnx_path)
        return TextEmbedding(
            spec.fastembed_name, specific_model_path=str(folder), local_files_only=True
        )


def parity() -> None:
    import numpy as np

    from citeloom.adapters.embedding.fp32_export import reference_vectors
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    texts = [t for d in documents() for t in d]
    cache = WORK / "var" / "cache"
    int8 = OnnxEmbedder.load(INT8, cache)
    fp32 = OnnxEmbedder.load(FP32, cache, model_cache=user_models())
    long = np.array([int8.count_tokens(t) >= 200 for t in texts])
    before = fastembed_model(int8.spec, int8.onnx_path)
    vectors = {
        "int8": np.array(int8.embed_documents(texts)),
        "fp32": np.array(fp32.embed_documents(texts)),
        "reference": np.array(reference_vectors(texts)),
        "FastEmbed int8": np.array(list(before.embed(texts, batch_size=16))),
    }
    try:
        vectors["bf16"] = np.array(bf16_embedder(None, None).embed_documents(texts))
    except NoBf16:
        print("no bfloat16 units on this CPU: no bf16 row")
    print(f"\nparity on {len(texts)} chunks ({int(long.sum())} of >= 200 tokens): cosine")
    print("| pair | all: min | all: mean | long: min | long: mean |")
    print("|---|---|---|---|---|")
    for a, b in [
        ("fp32", "reference"),
        ("bf16", "fp32"),
        ("int8", "reference"),
        ("fp32", "int8"),
        ("int8", "FastEmbed int8"),
    ]:
        if a not in vectors:
            continue
        x, y = vectors[a], vectors[b]
        cos = np.sum(x * y, 1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
        print(
            f"| {a} vs {b} | {cos.min():.6f} | {cos.mean():.6f} | "
            f"{cos[long].min():.6f} | {cos[long].mean():.6f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per setting")
    parser.add_argument("--quick", action="store_true", help="only the default of each model")
    parser.add_argument("--no-parity", action="store_true", help="skip the parity table")
    parser.add_argument("--papers", type=int, default=14, help="embed the first N papers only")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one setting
    args = parser.parse_args()
    if args.one:
        try:
            print(json.dumps(measure_one(args.one)))
        except NoBf16:
            print(json.dumps({"skipped": "no bfloat16 units on this CPU"}))
        return
    throughput(args.repeat, args.quick, args.papers)
    if not args.no_parity:
        parity()


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
