"""`citeloom mcp` driven by the official MCP client over stdio, against a real embedded index
and the real embedding model: every tool, every error code, the time limit, the 200-item limit,
and a CLI ingest while the server is up."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from citeloom.entrypoints.mcp_tools import TOOLS
from tests.conftest import CITELOOM, ROOT
from tests.conftest import write_config as config_file

pytestmark = pytest.mark.real

REFERENCES = ROOT / "references" / "example.json"
NOTES = [
    {
        "text": "Restored marshes accreted 6.8 mm of sediment per year, twice the rate of "
        "the reference marsh, because tidal exchange was restored.",
        "citekey": "ardel2023marsh",
        "section": "3 Results",
        "page": 2,
    },
    {
        "text": "Carbon burial followed accretion: the cores held 310 g of carbon per square "
        "metre and year.",
        "citekey": "ardel2023marsh",
        "section": "3 Results",
        "page": 3,
    },
    {
        "text": "Sediment pins were read every month along three transects.",
        "citekey": "ardel2023marsh",
        "section": "2 Methods",
        "page": 2,
    },
    {
        "text": "Open-plan offices interrupted researchers every eleven minutes.",
        "citekey": "lindqvist2021quiet",
        "page": 1,
        "tags": ["offices"],
    },
]


def write_config(folder: Path, extra: str = "") -> Path:
    """Projects 'papers' and 'other' on the bundled example library."""
    other = f'[project."other"]\ncollection = "proj-other"\nreferences_json = "{REFERENCES}"\n'
    return config_file(folder, REFERENCES, extra=other + extra)


def stored_documents(config: Path) -> list[dict]:
    """What `citeloom inspect` lists for 'papers', from another process."""
    held = subprocess.run(
        [CITELOOM, "inspect", "-p", "papers", "-c", str(config), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(held.stdout)["documents"]


@asynccontextmanager
async def session(config: Path, **env: str):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=CITELOOM,
        args=["mcp", "--config", str(config)],
        env={**{k: v for k, v in os.environ.items() if k.startswith("CITELOOM")}, **env},
        cwd=str(config.parent),
    )
    async with Client(params) as client:
        yield client


async def call(client: Any, tool: str, **arguments: Any) -> tuple[dict, bool]:
    result = await client.call_tool(tool, arguments)
    answer = result.structured_content
    assert json.loads(result.content[0].text) == answer  # text for clients without structure
    return answer, result.is_error


def code(answer: dict) -> str:
    assert answer["error"]["fix"]
    return answer["error"]["code"]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project holding the notes, stored through the server itself."""
    folder = tmp_path_factory.mktemp("mcp")
    config = write_config(folder)

    async def seed() -> None:
        async with session(config) as client:
            answer, failed = await call(client, "store_chunks", project="papers", items=NOTES)
            assert not failed, answer

    anyio.run(seed)
    yield config


def test_tools_are_listed_with_schemas_an_agent_can_follow(library):
    async def run() -> None:
        async with session(library) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {
                "list_projects",
                "inspect_collection",
                "query_hybrid",
                "find_chunks",
                "get_passage",
                "store_chunks",
                "list_notes",
                "delete_notes",
                "answer",
                "check_citations",
            }
            query = tools["query_hybrid"].input_schema
            assert {"project", "query"} <= set(query["required"])
            assert "filters" in query["properties"] and tools["query_hybrid"].description
            items = tools["store_chunks"].input_schema["properties"]["items"]
            assert items["maxItems"] == 200
            # a generic client (the MCP Inspector) fills what it sees: no $ref to follow, the
            # filters written out with their fields, the projects named
            for tool in tools.values():
                assert "$ref" not in json.dumps(tool.input_schema), tool.name
            filters = query["properties"]["filters"]
            assert filters["type"] == "object"
            assert {"citekeys", "tags", "year_from", "year_to", "section"} <= set(
                filters["properties"]
            )
            assert all(f.get("description") for f in filters["properties"].values())
            assert query["properties"]["project"]["enum"] == ["other", "papers"]

    anyio.run(run)


def test_every_tool_answers_with_citable_results(library):
    async def run() -> None:
        async with session(library) as client:
            listed, _ = await call(client, "list_projects")
            papers = next(p for p in listed["projects"] if p["project"] == "papers")
            assert (papers["documents"], papers["chunks"]) == (4, 4)

            held, _ = await call(client, "inspect_collection", project="papers")
            assert sorted({d["citekey"] for d in held["documents"]}) == [
                "ardel2023marsh",
                "lindqvist2021quiet",
            ]
            assert held["unmatched"] == [] and held["documents"][0]["year"] in (2021, 2023)

            found, failed = await call(
                client,
                "query_hybrid",
                project="papers",
                query="how fast do restored marshes accrete sediment",
                top_k=2,
            )
            assert not failed and found["answerable"]
            best = found["results"][0]
            # stored through store_chunks: a note on the paper, never the paper's words
            assert best["label"] == "[note on @ardel2023marsh, p. 2]"
            assert best["section_path"] == ["3 Results"] and best["year"] == 2023
            assert "text" not in best and best["render_text"].startswith("Restored marshes")

            only, _ = await call(
                client,
                "query_hybrid",
                project="papers",
                query="interruptions",
                filters={"tags": ["offices"]},
                full_text=True,
            )
            assert [r["citekey"] for r in only["results"]] == ["lindqvist2021quiet"]
            assert only["results"][0]["text"] == NOTES[3]["text"]

            page, _ = await call(
                client, "find_chunks", project="papers", citekey="ardel2023marsh", limit=2
            )
            assert page["total"] == 3 and len(page["chunks"]) == 2 and page["next_cursor"]
            rest, _ = await call(
                client,
                "find_chunks",
                project="papers",
                citekey="ardel2023marsh",
                cursor=page["next_cursor"],
            )
            assert len(rest["chunks"]) == 1 and rest["next_cursor"] is None
            methods, _ = await call(
                client, "find_chunks", project="papers", citekey="ardel2023marsh", section="methods"
            )
            assert [c["render_text"] for c in methods["chunks"]] == [NOTES[2]["text"]]

            around, failed = await call(
                client, "get_passage", project="papers", chunk_id=best["chunk_id"], context=1
            )
            assert not failed and around["passage"]["chunk_id"] == best["chunk_id"]

    anyio.run(run)


def test_render_text_is_trimmed_to_the_configured_length(tmp_path):
    config = write_config(tmp_path, extra="\n[mcp]\nmax_chars_per_chunk = 60\n")

    async def run() -> None:
        async with session(config) as client:
            await call(client, "store_chunks", project="papers", items=NOTES[:1])
            found, _ = await call(client, "query_hybrid", project="papers", query="marsh")
            shown = found["results"][0]
            assert len(shown["render_text"]) <= 60 and shown["render_text"].endswith("…")
            assert shown["render_trimmed"] is True

    anyio.run(run)


def test_each_error_code_names_a_fix(library):
    async def run() -> None:
        async with session(library) as client:
            answer, failed = await call(client, "query_hybrid", project="nope", query="marsh")
            assert failed and code(answer) == "INVALID_PROJECT"
            answer, failed = await call(
                client, "store_chunks", project="papers", items=[{"text": "x"}] * 201
            )
            assert (
                failed and code(answer) == "INVALID_INPUT" and "200" in answer["error"]["message"]
            )
            answer, _ = await call(client, "get_passage", project="papers", chunk_id="nope")
            assert code(answer) == "INVALID_INPUT"
            answer, _ = await call(client, "query_hybrid", project="papers", query="  ")
            assert code(answer) == "INVALID_INPUT"
            answer, _ = await call(client, "find_chunks", project="papers", citekey="nobody")
            assert code(answer) == "INVALID_INPUT"
            # filters sent as a string, as the MCP Inspector sends an object argument: read as
            # JSON when it is JSON, else an error that names the field, never a Python class
            text = json.dumps({"tags": ["offices"]})
            found, failed = await call(
                client, "query_hybrid", project="papers", query="interruptions", filters=text
            )
            assert not failed and [r["citekey"] for r in found["results"]] == ["lindqvist2021quiet"]
            # a tag the library has not is an error naming those it has; case does not count
            answer, failed = await call(
                client, "query_hybrid", project="papers", query="x", filters={"tags": ["ofices"]}
            )
            assert failed and code(answer) == "INVALID_INPUT"
            assert 'tag "ofices" is not one of' in answer["error"]["message"]
            assert '"offices"' in answer["error"]["message"]
            found, failed = await call(
                client, "query_hybrid", project="papers", query="x", filters={"tags": ["Offices"]}
            )
            assert not failed and {r["citekey"] for r in found["results"]} == {"lindqvist2021quiet"}
            answer, failed = await call(
                client, "query_hybrid", project="papers", query="x", filters="tags=offices"
            )
            assert failed and code(answer) == "INVALID_INPUT"
            assert "filters" in answer["error"]["message"]
            answer, failed = await call(
                client, "query_hybrid", project="papers", query="x", filters=["offices"]
            )
            assert failed and "filters" in answer["error"]["message"]
            assert "instance of" not in answer["error"]["message"]
            assert "Filters" not in answer["error"]["message"]

    anyio.run(run)
    assert len(stored_documents(library)) == 4  # the 201 items wrote nothing


def test_embedding_mismatch_is_refused_before_writing(tmp_path):
    from citeloom.adapters.qdrant.core import QdrantIndex
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine

    config = write_config(tmp_path)
    index = QdrantIndex(EdgeEngine(tmp_path / "var" / "qdrant"))
    index.ensure_collection("proj-other", "fastembed/all-MiniLM-L6-v2", 384, project="other")
    index.close()

    async def run() -> None:
        async with session(config) as client:
            answer, failed = await call(client, "store_chunks", project="other", items=NOTES[:1])
            assert failed and code(answer) == "EMBEDDING_MISMATCH"

    anyio.run(run)


def test_a_collection_of_other_languages_is_refused_with_the_reindex_fix(tmp_path):
    from citeloom.adapters.qdrant.core import QdrantIndex
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine
    from citeloom.config import DEFAULT_EMBED_MODEL
    from citeloom.domain.models import IndexPoint

    config = write_config(tmp_path)
    index = QdrantIndex(EdgeEngine(tmp_path / "var" / "qdrant"))
    index.ensure_collection(
        "proj-other", DEFAULT_EMBED_MODEL, 384, ("german", "english"), project="other"
    )
    payload = {"project": "other", "doc_id": "d", "fulltext": "Bodenerosion"}
    point = IndexPoint(
        "00000000-0000-0000-0000-000000000001", [0.05] * 384, "Bodenerosion", payload
    )
    index.upsert_points("proj-other", [point])
    index.close()

    async def run() -> None:
        async with session(config) as client:
            for tool, arguments in (
                ("store_chunks", {"items": NOTES[:1]}),
                ("query_hybrid", {"query": "Bodenerosion"}),
            ):
                answer, failed = await call(client, tool, project="other", **arguments)
                assert failed and code(answer) == "EMBEDDING_MISMATCH", answer
                assert "german, english" in answer["error"]["message"]
                assert "citeloom reindex --project P" in answer["error"]["fix"]

    anyio.run(run)


def test_index_unavailable_and_busy(library, tmp_path):
    from citeloom.adapters.qdrant.core import QdrantIndex
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine

    async def unreachable() -> None:
        async with session(library, CITELOOM_QDRANT__URL="http://127.0.0.1:9") as client:
            answer, _ = await call(client, "inspect_collection", project="papers")
            assert code(answer) == "INDEX_UNAVAILABLE"

    anyio.run(unreachable)

    async def busy() -> None:
        async with session(library, CITELOOM_MCP__TIMEOUT_S="3") as client:
            holder = QdrantIndex(EdgeEngine(library.parent / "var" / "qdrant"))
            holder.collection_info("proj-papers")  # holds the project, as an ingest would
            try:
                answer, _ = await call(client, "inspect_collection", project="papers")
            finally:
                holder.close()
            assert code(answer) == "INDEX_BUSY"
            answer, failed = await call(client, "inspect_collection", project="papers")
            assert not failed  # released: the next call gets in

    anyio.run(busy)


def test_a_call_over_the_time_limit_times_out_and_writes_nothing(tmp_path):
    # The limit must cover loading the model on a busy machine, and the work must outlast it
    # on a fast one: 200 notes of 50,000 characters are thousands of chunks to embed.
    config = write_config(tmp_path, extra="\n[mcp]\ntimeout_s = 10\n")

    def note(i: int) -> str:
        return " ".join(
            f"Core {i} sample {k} shows sediment accretion in the marsh." for k in range(900)
        )

    many = [{"text": note(i)} for i in range(200)]

    async def run() -> None:
        async with session(config) as client:
            answer, failed = await call(client, "store_chunks", project="papers", items=many)
            assert failed and code(answer) == "TIMEOUT"
            # the worker stops at its next step, before writing, and says so in the audit
            with anyio.fail_after(60):
                while "run_finished" not in events():
                    await anyio.sleep(0.2)

    def events() -> list[str]:
        audits = list((tmp_path / "var" / "audit").glob("*.jsonl"))
        lines = audits[0].read_text().splitlines() if audits else []
        return [json.loads(line)["event"] for line in lines]

    anyio.run(run)
    assert stored_documents(config) == []
    assert "run_aborted" in events() and "document" not in events()


def test_a_cli_ingest_runs_while_the_server_is_up_and_the_next_query_sees_it(tmp_path):
    config = write_config(tmp_path)
    paper = tmp_path / "tanabe2022notebooks.txt"
    paper.write_text(
        "Field notebooks were scanned nightly and checksummed so that every observation "
        "could be traced to its page.",
        encoding="utf-8",
    )

    async def run() -> None:
        async with session(config) as client:
            await call(client, "store_chunks", project="papers", items=NOTES)
            before, _ = await call(
                client, "query_hybrid", project="papers", query="field notebooks checksummed"
            )
            assert "tanabe2022notebooks" not in {r["citekey"] for r in before["results"]}
            ingest = await anyio.run_process(
                [CITELOOM, "ingest", str(paper), "-p", "papers", "-c", str(config)], check=False
            )
            assert ingest.returncode == 0, ingest.stderr.decode()
            assert b"waiting" not in ingest.stderr  # the server held nothing between calls
            after, _ = await call(
                client, "query_hybrid", project="papers", query="field notebooks checksummed"
            )
            assert after["results"][0]["citekey"] == "tanabe2022notebooks"

    anyio.run(run)


def test_check_reports_what_a_client_would_see(library):
    result = subprocess.run(
        [CITELOOM, "mcp", "--check", "--json", "-c", str(library)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["tools"]) == len(TOOLS) and report["errors"] == []
    assert {p["project"]: p["chunks"] for p in report["projects"]} == {"other": 0, "papers": 4}
    assert report["models"][0]["model"] == "fastembed/all-MiniLM-L6-v2-fp32"
    assert report["models"][0]["load_s"] > 0
    text = subprocess.run(
        [CITELOOM, "mcp", "--check", "-c", str(library)], capture_output=True, text=True, check=True
    ).stdout
    assert f"tools ({len(TOOLS)}): list_projects" in text and "loaded in" in text


def test_a_note_no_output_could_render_is_refused_and_notes_can_be_deleted(tmp_path):
    """Issue 20: page 10^20 was stored, and every query of the project failed after it, with no
    way to remove the note."""
    config = write_config(tmp_path)

    async def run() -> None:
        async with session(config) as client:
            bad = {"text": "A note.", "citekey": "ardel2023marsh", "page": 10**20}
            answer, failed = await call(client, "store_chunks", project="papers", items=[bad])
            assert (
                failed and code(answer) == "INVALID_INPUT" and "page" in answer["error"]["message"]
            )
            many = {"text": "A note.", "tags": [f"t{n}" for n in range(51)]}
            answer, failed = await call(client, "store_chunks", project="papers", items=[many])
            assert failed and code(answer) == "INVALID_INPUT"
            stored, failed = await call(client, "store_chunks", project="papers", items=NOTES[:2])
            assert not failed, stored
            ids = [note["doc_id"] for note in stored["stored"]]
            listed, _ = await call(client, "list_notes", project="papers")
            assert sorted(n["doc_id"] for n in listed["notes"]) == sorted(ids)
            assert {n["page"] for n in listed["notes"]} == {2, 3}
            wrong, failed = await call(client, "delete_notes", project="papers", doc_ids=["nope"])
            assert failed and code(wrong) == "INVALID_INPUT"
            gone, failed = await call(client, "delete_notes", project="papers", doc_ids=ids[:1])
            assert not failed and gone["deleted"] == ids[:1]
            listed, _ = await call(client, "list_notes", project="papers")
            assert [n["doc_id"] for n in listed["notes"]] == ids[1:]

    anyio.run(run)
    # the CLI lists and deletes the same notes
    shown = subprocess.run(
        [CITELOOM, "notes", "list", "-p", "papers", "-c", str(config)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "note on @ardel2023marsh, p. 3" in shown.stdout
    left = shown.stdout.split()[0]
    deleted = subprocess.run(
        [CITELOOM, "notes", "delete", left, "-p", "papers", "-c", str(config), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(deleted.stdout)["deleted"] == [left]
    assert stored_documents(config) == []


def test_notes_survive_reindex_with_their_tags_when_no_conversion_cache_holds_them(tmp_path):
    """Issue 20: notes lived in the conversion cache, so after an export/import to another
    machine (or a cleared cache) all of them failed to reindex, and reindex dropped their tags."""
    import shutil

    config = write_config(tmp_path)

    async def store() -> None:
        async with session(config) as client:
            answer, failed = await call(client, "store_chunks", project="papers", items=NOTES)
            assert not failed, answer

    anyio.run(store)
    shutil.rmtree(tmp_path / "var" / "cache" / "conversions", ignore_errors=True)
    rebuilt = subprocess.run(
        [CITELOOM, "reindex", "-p", "papers", "-c", str(config),
         "--embedding-model", "fastembed/all-MiniLM-L6-v2-fp32", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    assert report["switched"] and report["failures"] == [] and report["documents"] == len(NOTES)
    found = subprocess.run(
        [CITELOOM, "query", "interruptions", "-p", "papers", "-c", str(config), "--tag",
         "offices", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    (hit,) = json.loads(found.stdout)["results"]
    assert hit["label"] == "[note on @lindqvist2021quiet, p. 1]" and hit["kind"] == "note"
