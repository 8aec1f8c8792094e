"""The fp32 MiniLM's document vectors computed in bfloat16 on CPUs that multiply it natively.

An ingest spends most of its CPU in the embedder (ADR 0030: 0.21 s of the papers' 0.32 s a
page). On a CPU with AMX or AVX-512 BF16 units, torch's oneDNN kernels multiply bfloat16
matrices at several times the fp32 rate, and the network is small enough to write out here
(embeddings, six encoder layers, mean pooling). Measured on the 464 chunks of the shared papers
(benchmarks/embed_throughput.py, ADR 0031 and its addendum): 13.1 s of CPU against 34.9 s for
the fp32 ONNX session in the same hour, cosine to the fp32 vectors 0.99989 at the least (int8
weights, rejected in ADR 0030, reached only 0.978). So the vectors are the same model's to the
write guard: the model id is the fp32 one, and queries (which start without torch) keep the
ONNX session.

Only an ingest or a reindex uses it; ``citeloom query`` never imports this module. Importing
torch costs an ingest about 3 s of CPU and 200 MB (the rules PDF pipeline keeps it out:
``conversion.slim_import``), far less than the fp32 session would spend. On a CPU without those
units bfloat16 would be emulated and slower than fp32, so ``loader.load_document_embedder``
falls back to the ONNX session there. The model is built before any conversion sets Tesseract's
OMP_THREAD_LIMIT (ADR 0030), which torch's OpenMP would otherwise read (``_set_threads``).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

# torch's OpenMP threads spin while they wait, and an ingest converts on another thread as it
# embeds: with one of two cores busy, the 464 chunks cost 30.2 s of CPU (24.1 s wall) spinning
# and 12.0 s (11.9 s) passive; quiet, passive costs ~1 s of wall and no CPU (ADR 0031). OpenMP
# reads this once, when torch loads; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from citeloom.adapters.embedding.sorted_runs import SortedRuns, mean_pool, padded
from citeloom.adapters.embedding.tokenizer import load_model_tokenizer

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Texts a run: AMX tiles want a few rows; past 8, padding and activations outgrew the gain
# (the 464 chunks: 4 texts 12.9 s of CPU, 8 texts 11.8 s, 32 texts 12.4 s; ADR 0031).
TEXTS_PER_RUN = 8
# A run is padded to a multiple of this many tokens: oneDNN builds and keeps a kernel for each
# shape it meets, so a paper's chunks of every length held 700 MB and cost 17-19 s of CPU;
# eight widths hold 420 MB and cost 12-15 s (ADR 0031).
WIDTH_STEP = 32
HIDDEN, HEADS, LAYERS, EPS = 384, 12, 6, 1e-12


def runs_natively() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX tiles or AVX-512 BF16)."""
    cpu = torch.cpu
    return bool(
        torch.backends.mkldnn.is_available()
        and (cpu._is_amx_tile_supported() or cpu._is_avx512_bf16_supported())
    )


def openmp_thread_limit() -> int | None:
    """The thread limit torch's OpenMP runtime read from OMP_THREAD_LIMIT when it loaded (None:
    no such runtime found). The variable may have changed since; only the runtime knows."""
    library = Path(torch.__file__).parent / "lib" / "libgomp.so.1"
    try:
        limit = int(ctypes.CDLL(str(library)).omp_get_thread_limit())
    except (OSError, AttributeError):
        return None
    return limit if limit > 0 else None


def _set_threads(threads: int | None) -> None:
    """oneDNN's bfloat16 kernels split their work for torch's thread count; if OpenMP was
    limited to fewer threads when torch loaded, the rows of the missing threads come back as
    garbage (NaN and vectors unrelated to the fp32 ones: found by a test that converted papers
    with OCR on before torch loaded, so Tesseract's limit reached torch). Never run more
    threads than that limit."""
    wanted = threads or torch.get_num_threads()
    limit = openmp_thread_limit()
    torch.set_num_threads(min(wanted, limit) if limit else wanted)


class Bf16MiniLM(SortedRuns):
    """all-MiniLM-L6-v2 from its original weights (``fp32_export.weights_dir``), in bfloat16."""

    def __init__(
        self, model_id: str, weights: Path, tokenizer_dir: Path, threads: int | None = None
    ) -> None:
        super().__init__(model_id, tokenizer_dir)
        self._tokenizer = load_model_tokenizer(tokenizer_dir)
        _set_threads(threads)
        self._w = {
            name: tensor.to(torch.bfloat16)
            for name, tensor in load_file(weights / "model.safetensors").items()
        }
        for layer in range(LAYERS):  # one matrix product for the query, key and value
            attention = f"encoder.layer.{layer}.attention.self."
            for part in ("weight", "bias"):
                self._w[attention + "qkv." + part] = torch.cat(
                    [self._w.pop(f"{attention}{head}.{part}") for head in ("query", "key", "value")]
                )
        # Each matrix of the encoder once in oneDNN's own layout, as torch.compile's freezing
        # pass would. F.linear hands oneDNN the plain matrix on every call and copies the bias
        # into its output first (0.6 s of the 8.1 s profiled), and GELU was a pass of its own
        # over the 1,536-wide activations (0.7 s). Packed, with bias and GELU in the product,
        # the papers' 464 chunks took 12.2 s of CPU against 13.9 s (medians of five
        # interleaved pairs; ADR 0031, addendum).
        matrices = [
            name
            for name in self._w
            if name.startswith("encoder.") and name.endswith(("dense.weight", "qkv.weight"))
        ]
        pack = torch.ops.mkldnn._reorder_linear_weight
        self._packed = {name.removesuffix(".weight"): pack(self._w.pop(name)) for name in matrices}
        self._dimensions = HIDDEN
        self.batch_size = TEXTS_PER_RUN

    def _run(self, ids: list[list[int]]) -> NDArray[np.float32]:
        longest = max(len(row) for row in ids)
        width = min(-(-longest // WIDTH_STEP) * WIDTH_STEP, self.max_tokens)
        input_ids, mask = padded(ids, self._tokenizer.pad_id, width)
        with torch.inference_mode():
            hidden = self._encode(torch.from_numpy(input_ids), torch.from_numpy(mask != 0))
        return mean_pool(hidden.float().numpy(), mask)

    def _encode(self, input_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """BERT's encoder as the weights name it (token type 0 throughout, like FastEmbed)."""
        w = self._w
        texts, width = input_ids.shape
        h = (
            w["embeddings.word_embeddings.weight"][input_ids]
            + w["embeddings.position_embeddings.weight"][:width]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        h = self._norm(h, "embeddings.LayerNorm")
        attend = mask[:, None, None, :]
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."
            qkv = self._linear(h, p + "attention.self.qkv")
            q, k, v = qkv.view(texts, width, 3, HEADS, HIDDEN // HEADS).permute(2, 0, 3, 1, 4)
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=attend)
            attended = heads.transpose(1, 2).reshape(texts, width, HIDDEN)
            h = self._norm(
                h + self._linear(attended, p + "attention.output.dense"),
                p + "attention.output.LayerNorm",
            )
            inner = self._linear(h, p + "intermediate.dense", "gelu")
            h = self._norm(h + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")
        return h

    def _linear(self, x: torch.Tensor, name: str, then: str = "none") -> torch.Tensor:
        """x times a packed matrix plus its bias, then ``then`` ("gelu": exact GELU, BERT's)
        in the same pass."""
        algorithm = "none" if then == "gelu" else ""
        return torch.ops.mkldnn._linear_pointwise(
            x, self._packed[name], self._w[name + ".bias"], then, [], algorithm
        )

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.layer_norm(x, (HIDDEN,), self._w[name + ".weight"], self._w[name + ".bias"], EPS)
