"""ONNX sessions and the optimised-model cache: the leaf every embedding module builds on.

onnxruntime's graph optimisations (for the int8 file: turning its int8 weights back into
floats, fusing layer norms and GELUs) cost a third of a second at every start; they are applied
once and the optimised graph is kept in the model's cache folder, which is what a cold query
then loads. The exporter (``fp32_export``), the catalogue (``models``) and the embedder
(``onnx_embedder``) all find a model's files here; this module imports none of them.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import onnxruntime as ort


def session_options(threads: int | None) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Measured (benchmarks/embed_throughput.py): onnxruntime's memory arena lowers the peak
    # (int8: 589 against 965 MB without it; plain malloc fragments across threads), and threads
    # that sleep instead of spinning while they wait cost less CPU on a busy machine.
    options.enable_cpu_mem_arena = True
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    return options


def model_folder(cache_dir: Path, model_id: str) -> Path:
    """The model's own folder in the cache: files built from its weights live there."""
    return cache_dir / "models" / model_id.replace("/", "--")


def optimised_path(onnx_path: Path, folder: Path) -> Path:
    """Where the optimised copy of ``onnx_path`` is kept: one per source file and onnxruntime
    version (an upgrade may optimise differently, so it builds its own copy)."""
    stat = onnx_path.stat()
    key = f"{onnx_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{ort.__version__}"
    return folder / f"optimised-{hashlib.sha256(key.encode()).hexdigest()[:12]}.onnx"


def save_optimised(
    onnx_path: Path, target: Path, threads: int | None = None
) -> ort.InferenceSession:
    """Open ``onnx_path``, saving its optimised graph to ``target`` (a session over it).

    The graph is saved at the extended level: the level above it adds only layout changes
    for convolutions, which onnxruntime calls hardware specific and a BERT does not have.
    """
    options = session_options(threads)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(target)
    return ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])


def open_session(onnx_path: Path, folder: Path, threads: int | None) -> ort.InferenceSession:
    """A session over the optimised graph: a file in the model's cache folder was optimised
    when it was built; any other (a package's) is optimised once into that folder."""
    providers = ["CPUExecutionProvider"]
    target = optimised_path(onnx_path, folder)
    if onnx_path.parent == folder or target.is_file():
        built = onnx_path if onnx_path.parent == folder else target
        return ort.InferenceSession(str(built), session_options(threads), providers=providers)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only cache: optimise at every start instead
        return ort.InferenceSession(str(onnx_path), session_options(threads), providers=providers)
    session = save_optimised(onnx_path, tmp, threads)
    try:
        os.replace(tmp, target)  # whole or not at all, also with two processes at once
        for stale in target.parent.glob("optimised-*.onnx"):
            if stale != target:
                stale.unlink(missing_ok=True)
    except OSError:
        tmp.unlink(missing_ok=True)
    return session
