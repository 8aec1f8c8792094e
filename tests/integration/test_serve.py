"""``citeloom serve`` through a real HTTP client against uvicorn on 127.0.0.1."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import CITELOOM, EXAMPLES, write_config

pytestmark = pytest.mark.real
QUESTION = "how fast do restored salt marshes accrete sediment"
REFERENCES = EXAMPLES.parent.parent / "references" / "example.json"
CLAIM = "Restored sites accreted 6.8 millimetres of sediment per year [@ardel2023marsh, p. 118]."
# 2,000 different citations: about a minute of checking on an idle 2-core machine, far more
# under load (the same sentence repeated is judged once, so each one states its own figure)
LONG_DRAFT = "\n".join(
    f"Restored sites accreted {6 + i / 1000:.3f} millimetres of sediment per year "
    "[@ardel2023marsh, p. 118]."
    for i in range(2000)
)
TOKEN = "CITELOOM_SERVE_TOKEN"
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_ACCEPT = {"accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(config: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    server = subprocess.Popen(
        [CITELOOM, "serve", "-c", str(config), "--port", str(port)],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"serve exited: {server.stderr.read() if server.stderr else ''}")
        try:
            httpx.get(f"{url}/docs", timeout=2)
            return server, url
        except httpx.TransportError:
            time.sleep(0.3)
    server.terminate()
    raise AssertionError("serve did not start")


def stop(server: subprocess.Popen) -> str:
    server.terminate()
    _, err = server.communicate(timeout=30)
    return err


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("serve")
    inbox = folder / "inbox"
    inbox.mkdir()
    for name in ("ardel2023_restored_marshes.pdf", "lindqvist2021_quiet_hours.pdf"):
        shutil.copy(EXAMPLES / name, inbox / name)
    config = write_config(folder, REFERENCES)
    done = subprocess.run(
        [CITELOOM, "ingest", str(inbox), "-p", "papers", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    server, url = start(config)
    yield url, config
    err = stop(server)
    assert "Traceback" not in err


def test_every_route_answers_with_the_cli_json(served):
    url, config = served
    health = httpx.get(f"{url}/health").json()
    assert health["status"] == "ok" and health["index_reachable"]
    assert health["models_loaded"] == ["fastembed/all-MiniLM-L6-v2-fp32"]
    assert {"citeloom", "fastapi", "uvicorn"} <= set(health["versions"])
    projects = httpx.get(f"{url}/projects").json()["projects"]
    assert [(p["project"], p["documents"], p["chunks"] > 0) for p in projects] == [
        ("papers", 2, True)
    ]
    query = httpx.post(f"{url}/query", json={"project": "papers", "query": QUESTION}, timeout=60)
    assert query.status_code == 200 and query.json()["results"][0]["citekey"] == "ardel2023marsh"
    answer = httpx.post(
        f"{url}/answer", json={"project": "papers", "question": QUESTION}, timeout=60
    )
    cli = subprocess.run(
        [CITELOOM, "answer", QUESTION, "-p", "papers", "-c", str(config), "--json", "--local"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert answer.json() == json.loads(cli.stdout)  # one schema for both
    assert answer.json()["citations"][0]["verified"] is True
    draft = (
        "Restored sites accreted 6.8 millimetres of sediment per year [@ardel2023marsh, p. 118]."
    )
    check = httpx.post(f"{url}/check", json={"project": "papers", "draft": draft}, timeout=60)
    assert check.json()["ok"] and check.json()["citations"][0]["verdict"] == "supported"
    strict = httpx.post(
        f"{url}/check",
        json={"project": "papers", "draft": draft, "fail_on": ["supported"]},
        timeout=60,
    )
    assert not strict.json()["ok"] and strict.json()["fail_on"] == ["supported"]
    assert httpx.get(f"{url}/docs").status_code == 200
    assert "/answer" in httpx.get(f"{url}/openapi.json").json()["paths"]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CITELOOM, "-v", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )


HANDED = "answered by citeloom serve at 127.0.0.1:"


def test_query_answer_and_check_hand_off_to_the_server_with_the_same_output(served, tmp_path):
    _, config = served
    draft = tmp_path / "chapter.md"
    draft.write_text(f"{CLAIM}\nRestored sites accreted 9 millimetres a year [@ardel2023marsh].\n")
    project = ("-p", "papers", "-c", str(config))
    for command in (
        ("query", QUESTION, "--top-k", "3"),
        ("query", QUESTION, "--format", "markdown", "--per-doc", "1"),
        ("query", QUESTION, "--json"),
        ("answer", QUESTION),
        ("answer", QUESTION, "--format", "markdown"),
        ("check", str(draft)),
        ("check", str(draft), "--json"),
        ("check", str(draft), "--fail-on", "not-found"),
    ):
        handed = cli(*command, *project)
        local = cli(*command, *project, "--local")
        assert HANDED in handed.stderr, (command, handed.stderr)
        assert HANDED not in local.stderr
        assert handed.returncode == local.returncode, (command, handed.stderr)
        assert handed.stdout == local.stdout, command
    assert cli("check", str(draft), *project).returncode == 1  # the 9 mm claim is not supported
    assert cli("check", str(draft), *project, "--fail-on", "not-found").returncode == 0
    # another setting than the server's: the work is done here, as this process would
    other = cli("query", QUESTION, *project, env={"CITELOOM_QDRANT__BUSY_TIMEOUT_S": "31"})
    assert other.returncode == 0 and HANDED not in other.stderr
    assert "[@ardel2023marsh" in other.stdout
    # an unknown project is reported by this process, as without a server
    unknown = cli("query", QUESTION, "-p", "nope", "-c", str(config))
    assert unknown.returncode != 0 and "unknown project 'nope'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_bad_requests_get_a_4xx_json_error_naming_the_field(served):
    url, _ = served
    missing = httpx.post(f"{url}/answer", json={"project": "papers"})
    assert missing.status_code == 422 and missing.json()["field"] == "question"
    wrong = httpx.post(f"{url}/query", json={"project": "papers", "query": "x", "top_k": 0})
    assert wrong.status_code == 422 and wrong.json()["field"] == "top_k"
    extra = httpx.post(f"{url}/answer", json={"project": "papers", "question": "x", "qestion": 1})
    assert extra.status_code == 422 and extra.json()["field"] == "qestion"
    unknown = httpx.post(f"{url}/answer", json={"project": "nope", "question": "marshes"})
    assert unknown.status_code == 404 and "unknown project 'nope'" in unknown.json()["error"]
    body = {"project": "papers", "query": "marshes", "collections": ["Thesis"]}
    no_such = httpx.post(f"{url}/query", json=body)  # the CLI's message, a 4xx
    assert no_such.status_code == 400
    assert 'collection "Thesis" is not one of the project\'s collections' in no_such.json()["error"]
    broken = httpx.post(
        f"{url}/check", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422 and "Traceback" not in broken.text


def test_an_ingest_in_a_terminal_works_while_the_server_runs(served):
    url, config = served
    inbox = config.parent / "inbox"
    shutil.copy(EXAMPLES / "tanabe2022_field_notebooks.pdf", inbox)
    done = subprocess.run(
        [CITELOOM, "ingest", str(inbox), "-p", "papers", "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # the server does not hold the shard
    query = {"project": "papers", "query": "field notebooks page identifiers checksums"}
    results = httpx.post(f"{url}/query", json=query, timeout=60).json()["results"]
    assert results[0]["citekey"] == "tanabe2022notebooks"


def test_a_token_is_required_off_loopback_and_enforced_when_set(served):
    _, config = served
    refused = subprocess.run(
        [CITELOOM, "serve", "-c", str(config), "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "CITELOOM_SERVE_TOKEN"},
        check=False,
    )
    assert refused.returncode == 2 and "CITELOOM_SERVE_TOKEN" in refused.stderr
    server, url = start(config, {"CITELOOM_SERVE_TOKEN": "s3cret-token"})
    try:
        assert httpx.get(f"{url}/projects").status_code == 401
        bad = httpx.get(f"{url}/projects", headers={"Authorization": "Bearer wrong"})
        assert bad.status_code == 401 and "bearer token" in bad.json()["error"]
        good = httpx.get(f"{url}/projects", headers={"Authorization": "Bearer s3cret-token"})
        assert good.status_code == 200
    finally:
        err = stop(server)
    assert "s3cret-token" not in err


def test_the_mcp_tools_answer_over_streamable_http_at_mcp(served):
    import anyio
    from mcp import Client

    url, _ = served
    found: dict = {}

    async def session() -> None:
        async with Client(f"{url}/mcp/") as client:
            found["tools"] = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool(
                "query_hybrid", {"project": "papers", "query": "salt marsh accretion rates"}
            )
            found["answer"] = result.structured_content or {}
            wrong = await client.call_tool("query_hybrid", {"project": "nope", "query": "x"})
            found["error"] = (wrong.is_error, wrong.structured_content or {})

    anyio.run(session)
    assert {"list_projects", "query_hybrid", "get_passage", "store_chunks"} <= found["tools"]
    assert found["answer"]["results"][0]["label"].startswith("[@ardel2023marsh")
    assert found["error"][0] and found["error"][1]["error"]["code"] == "INVALID_PROJECT"


def test_projects_answers_what_the_mcp_tool_list_projects_does(served):
    url, _ = served
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "list_projects", "arguments": {}},
    }
    tool = httpx.post(f"{url}/mcp/", json=call, headers=MCP_ACCEPT, timeout=60)
    assert tool.status_code == 200, tool.text
    rest = httpx.get(f"{url}/projects", timeout=60)
    assert rest.status_code == 200, rest.text
    assert rest.json() == tool.json()["result"]["structuredContent"]
    [project] = rest.json()["projects"]
    assert (
        project["stored_model"] == project["embedding_model"] == "fastembed/all-MiniLM-L6-v2-fp32"
    )


def test_the_request_examples_at_docs_work_on_the_example_papers(served):
    url, _ = served
    document = httpx.get(f"{url}/openapi.json").json()
    hit = httpx.post(f"{url}/query", json={"project": "papers", "query": QUESTION}, timeout=60)
    chunk_id = hit.json()["results"][0]["chunk_id"]  # a chunk of this index, not the example's
    for path, item in document["paths"].items():
        if "post" not in item:
            continue
        body = item["post"]["requestBody"]["content"]["application/json"]["schema"]
        component = document["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
        for example in component["examples"]:
            sent = {**example, "project": "papers"}  # this server's name for the papers
            if "chunk_id" in sent:
                sent["chunk_id"] = chunk_id
            answer = httpx.post(f"{url}{path}", json=sent, timeout=120)
            assert answer.status_code == 200, (path, example, answer.text)
            found = answer.json()
            assert found.get("results") or found.get("citations") or found.get("passage"), (
                path,
                example,
                found,
            )


def held(lock: Path) -> bool:
    """Whether a process holds the project's lock file (as an open embedded index does)."""
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # a probe that got the lock lets it go at once
    return False


def test_a_request_over_the_time_limit_answers_503_with_retry_after(served):
    _, config = served
    limited = write_config(
        config.parent, REFERENCES, extra="\n[serve]\ntimeout_s = 5\n", name="limited.toml"
    )
    server, url = start(limited)
    try:
        long = {"project": "papers", "draft": LONG_DRAFT}
        slow = httpx.post(f"{url}/check", json=long, timeout=600)
        assert slow.status_code == 503, slow.text
        assert int(slow.headers["Retry-After"]) > 0
        assert set(slow.json()) == {"error", "field"}  # nothing of the check is reported
        assert "[serve] timeout_s = 5 s" in slow.json()["error"]
        # the abandoned check stops at its next citation; then the server answers again
        short = {"project": "papers", "draft": CLAIM}
        for _ in range(120):
            after = httpx.post(f"{url}/check", json=short, timeout=600)
            if after.status_code != 503:
                break
            time.sleep(1)
        assert after.status_code == 200 and after.json()["ok"], after.text
    finally:
        assert "Traceback" not in stop(server)


def test_an_ingest_is_never_starved_by_checks_running_back_to_back(served):
    _, config = served
    note = config.parent / "tanabe2022notebooks.txt"
    note.write_text(
        "Field notebooks were scanned nightly and checksummed so that every observation could "
        "be traced to its page.",
        encoding="utf-8",
    )
    server, url = start(config)
    done = threading.Event()
    statuses: list[int] = []

    def checks() -> None:
        with httpx.Client(timeout=600) as client:
            while not done.is_set():
                try:
                    body = {"project": "papers", "draft": LONG_DRAFT}
                    statuses.append(client.post(f"{url}/check", json=body).status_code)
                except httpx.TransportError:  # the server was stopped under it
                    return

    worker = threading.Thread(target=checks, daemon=True)
    worker.start()
    try:
        lock = config.parent / "var" / "qdrant" / "proj-papers.lock"
        for _ in range(1200):  # until a check holds the project
            if held(lock):
                break
            time.sleep(0.1)
        assert held(lock), "no check held the index"
        # the ingest waits at most 15 s: much less than a check takes, much more than the
        # one citation the server finishes before it lets a waiting process in
        ingest = subprocess.run(
            [CITELOOM, "ingest", str(note), "-p", "papers", "-c", str(config)],
            env={**os.environ, "CITELOOM_QDRANT__BUSY_TIMEOUT_S": "15"},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert ingest.returncode == 0, ingest.stderr
        assert "index busy" not in ingest.stderr
    finally:
        done.set()
        err = stop(server)
        worker.join(timeout=60)
    assert "Traceback" not in err
    assert all(status in (200, 503) for status in statuses), statuses


def test_a_busy_port_fails_at_once_with_a_usage_error_naming_it(served):
    _, config = served
    # a project whose model is not on this machine: loading it would log a warning, so its
    # absence shows the port was tried before any model was loaded
    unloadable = (
        '[project."elsewhere"]\ncollection = "proj-elsewhere"\n'
        f'references_json = "{REFERENCES}"\nembedding_model = "fastembed/BAAI/bge-small-en-v1.5"\n'
    )
    other = write_config(config.parent, REFERENCES, extra=unloadable, name="other.toml")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = subprocess.run(
            [CITELOOM, "serve", "-c", str(other), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"127.0.0.1:{port} is already in use" in lines[0] and "--port" in lines[0]
    assert "elsewhere" not in refused.stderr


def test_one_token_check_for_every_route_and_mcp(served):
    _, config = served
    refused = subprocess.run(
        [CITELOOM, "serve", "-c", str(config), "--port", str(free_port())],
        env={**os.environ, TOKEN: "s3cret-tökén"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode == 2 and TOKEN in refused.stderr and "ASCII" in refused.stderr
    assert "tökén" not in refused.stderr
    server, url = start(config, {TOKEN: "s3cret-token"})
    try:
        for scheme in ("Bearer", "bearer", "BEARER"):
            sent = {"Authorization": f"{scheme} s3cret-token"}
            assert httpx.get(f"{url}/projects", headers=sent).status_code == 200, scheme
            tools = httpx.post(f"{url}/mcp/", json=MCP_LIST, headers={**MCP_ACCEPT, **sent})
            assert tools.status_code == 200 and tools.json()["result"]["tools"], scheme
        wrong = ("Bearer wrong", "Bearer s3cret-tokens", "Basic s3cret-token", "s3cret-token")
        for sent in [{}, *({"Authorization": value} for value in wrong)]:
            rest = httpx.get(f"{url}/projects", headers=sent)
            mcp = httpx.post(f"{url}/mcp/", json=MCP_LIST, headers={**MCP_ACCEPT, **sent})
            for answer in (rest, mcp):
                assert answer.status_code == 401 and answer.headers["WWW-Authenticate"] == "Bearer"
                assert set(answer.json()) == {"error", "field"}
    finally:
        err = stop(server)
    assert "s3cret-token" not in err


def test_bodies_the_framework_refuses_get_the_error_shape_too(served):
    url, _ = served
    as_json = {"content-type": "application/json"}

    def refused(answer: httpx.Response, status: int) -> str:
        assert answer.status_code == status, answer.text
        assert set(answer.json()) == {"error", "field"} and "detail" not in answer.text
        return answer.json()["error"]

    not_utf8 = b'{"project": "papers", "query": "\xff\xfe marshes"}'
    assert "UTF-8" in refused(httpx.post(f"{url}/query", content=not_utf8, headers=as_json), 400)
    nested = httpx.post(f"{url}/answer", content=b"[" * 200_000, headers=as_json)
    assert "nested too deeply" in refused(nested, 400)
    assert "no route GET /nope" in refused(httpx.get(f"{url}/nope"), 404)
    assert "/mcp/" in refused(httpx.get(f"{url}/mcp/nope"), 404)
    wrong_method = httpx.get(f"{url}/query")
    assert "use POST" in refused(wrong_method, 405) and wrong_method.headers["Allow"] == "POST"
    # over [serve] max_body_bytes (5,000,000 by default): said before anything is parsed,
    # whether the client gives the length or streams the body in chunks
    big = b'{"project": "papers", "draft": "' + b"x" * 5_000_000 + b'"}'
    chunks = [big[i : i + 65536] for i in range(0, len(big), 65536)]
    sized = httpx.post(f"{url}/check", content=big, headers=as_json, timeout=60)
    assert "max_body_bytes" in refused(sized, 413)
    streamed = httpx.post(f"{url}/check", content=iter(chunks), headers=as_json, timeout=60)
    refused(streamed, 413)
    to_mcp = httpx.post(f"{url}/mcp/", content=big, headers={**as_json, **MCP_ACCEPT}, timeout=60)
    refused(to_mcp, 413)


def test_a_stopped_server_takes_its_announcement_with_it(served):
    _, config = served
    from citeloom.entrypoints.handoff import announcement

    second, _ = start(config)
    record = json.loads(announcement(config).read_text())
    assert record["pid"] == second.pid and "token" not in json.dumps(record).lower()
    assert HANDED in cli("query", QUESTION, "-p", "papers", "-c", str(config)).stderr
    stop(second)
    assert not announcement(config).exists()
    after = cli("query", QUESTION, "-p", "papers", "-c", str(config))
    assert after.returncode == 0 and HANDED not in after.stderr


def test_a_port_taken_over_after_kill_9_gets_nothing_and_its_results_are_not_printed(served):
    """The issue's attack: a server killed with -9 leaves its announcement, its pid is alive
    again (here: this test's own), and someone else listens on the port it freed, recording
    what arrives and answering forged results. The CLI prints its own results."""
    from citeloom.entrypoints.handoff import announcement
    from tests.impostor import FORGED, listening

    _, config = served
    path = announcement(config)
    kept = path.read_bytes() if path.exists() else None  # the module's server's, put back
    dead, url = start(config)
    dead.kill()  # no clean-up: the announcement stays
    dead.communicate(timeout=30)
    record = json.loads(path.read_text())
    assert record["pid"] == dead.pid
    path.write_text(json.dumps({**record, "pid": os.getpid()}))  # the pid reused
    try:
        with listening(int(url.rsplit(":", 1)[1])) as impostor:
            done = cli("query", QUESTION, "-p", "papers", "-c", str(config), env={TOKEN: "t0ken"})
        assert done.returncode == 0, done.stderr
        assert FORGED not in done.stdout and "[@ardel2023marsh" in done.stdout
        assert HANDED not in done.stderr
        assert not impostor.saw(QUESTION) and not impostor.saw("marshes")
        assert not impostor.saw("t0ken")
    finally:
        if kept is None:
            path.unlink()
        else:
            path.write_bytes(kept)
