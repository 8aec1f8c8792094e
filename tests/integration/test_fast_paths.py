"""`citeloom query --help` and `citeloom query` must start fast: no Docling, torch or FastEmbed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, write_config

PROBE = """
import json, sys
from citeloom.entrypoints.cli import main
sys.argv = ["citeloom", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exit:
    code = exit.code
loaded = {m.split(".")[0] for m in sys.modules}
heavy = sorted(loaded & {"docling", "docling_core", "torch", "fastembed"})
models = sorted(loaded & {"pydantic", "numpy", "onnxruntime", "qdrant_edge"})
print("\\nMODELS=" + json.dumps(models), file=sys.stderr)
print("\\nHEAVY=" + json.dumps(heavy), file=sys.stderr)
sys.exit(code or 0)
"""


def run_probe(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, check=False
    )


def probe(args: list[str]) -> tuple[int, list[str], str]:
    result = run_probe(args)
    heavy = json.loads(result.stderr.rsplit("HEAVY=", 1)[1])
    return result.returncode, heavy, result.stdout


def test_query_help_imports_neither_docling_nor_torch():
    code, heavy, out = probe(["query", "--help"])
    assert code == 0 and "--top-k" in out
    assert heavy == []


def test_help_starts_without_models_or_engines():
    """--help needs only typer: pydantic, numpy, onnxruntime and the engine imported when the
    CLI starts cost every command a quarter of a second before any work, a query handed to a
    running serve included (a command imports its request model when it runs)."""
    result = run_probe(["query", "--help"])
    assert result.returncode == 0
    models = json.loads(result.stderr.rsplit("MODELS=", 1)[1].split("\n", 1)[0])
    assert models == []


@pytest.mark.real
def test_a_real_query_imports_neither_docling_nor_torch(tmp_path: Path, fp32_embedder):
    from citeloom.adapters.qdrant.core import QdrantIndex
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine
    from citeloom.domain.ids import chunk_id
    from citeloom.domain.models import Chunk, ConvertedDocument, IndexPoint, MetadataMatch
    from citeloom.domain.records import build_payload

    config = write_config(tmp_path, DATA / "papers.csl.json")
    index = QdrantIndex(EdgeEngine(tmp_path / "var" / "qdrant"))
    index.ensure_collection(
        "proj-papers", fp32_embedder.model_id, fp32_embedder.dimensions, project="papers"
    )
    text = "Restored marshes accreted sediment quickly after the breach."
    chunk = Chunk("d", 0, text, text, ("3 Results",), 2, 2, 12)
    payload = build_payload(
        project="papers",
        chunk=chunk,
        document=ConvertedDocument("a.pdf", "0" * 64, "T", 3, (), "t"),
        match=MetadataMatch(None, None),
        embed_model=fp32_embedder.model_id,
        ingest_id="x",
    )
    point_id = chunk_id("d", ("3 Results",), 2, 2, fp32_embedder.model_id, 0)
    index.replace_document(
        "proj-papers",
        "d",
        "a.pdf",
        [IndexPoint(point_id, fp32_embedder.embed_documents([text])[0], text, payload)],
    )
    index.close()
    code, heavy, out = probe(
        ["query", "marsh sediment", "-p", "papers", "-c", str(config), "--json"]
    )
    assert code == 0, out
    assert json.loads(out)["results"][0]["page_start"] == 2
    assert heavy == []


MCP_PROBE = """
import json, sys
import anyio
from mcp import Client
from citeloom.config import load_settings
from citeloom.entrypoints.mcp_server import build_server
from citeloom.entrypoints.mcp_tools import ToolRuntime
from citeloom.entrypoints.runtime import Runtime

async def main():
    settings = load_settings(__import__("pathlib").Path(sys.argv[1]))
    server = build_server(ToolRuntime(Runtime(settings)))
    async with Client(server) as client:
        await client.list_tools()
        items = [{"text": "Restored marshes accreted sediment quickly.", "page": 2}]
        stored = await client.call_tool("store_chunks", {"project": "papers", "items": items})
        found = await client.call_tool("query_hybrid", {"project": "papers", "query": "marsh"})
        assert not stored.is_error and not found.is_error, (stored, found)
        print(json.dumps(found.structured_content["results"][0]["label"]))

anyio.run(main)
loaded = {m.split(".")[0] for m in sys.modules}
print("HEAVY=" + json.dumps(sorted(loaded & {"docling", "docling_core", "torch", "fastembed"})))
"""


@pytest.mark.real
def test_the_mcp_server_stores_and_queries_without_docling_or_torch(tmp_path: Path):
    config = write_config(tmp_path, DATA / "papers.csl.json")
    result = subprocess.run(
        [sys.executable, "-c", MCP_PROBE, str(config)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    label, heavy = result.stdout.strip().splitlines()[-2:]
    assert json.loads(label) == "[note, p. 2]"  # a stored note naming no paper
    assert json.loads(heavy.removeprefix("HEAVY=")) == []


def test_mcp_help_imports_neither_docling_nor_torch():
    code, heavy, out = probe(["mcp", "--help"])
    assert code == 0 and "--check" in out
    assert heavy == []
