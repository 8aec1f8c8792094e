"""Export and import move a project between engines without re-embedding: the bundled example
papers ingested into the embedded engine, exported, imported into a Qdrant server (the
qdrant-client engine, QdrantClient(":memory:")), exported from there and imported into a fresh
embedded project answer every query exactly as the original did."""

from __future__ import annotations

import json
import os
import stat
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom import bootstrap
from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
from citeloom.adapters.qdrant.server_engine import ServerEngine
from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError
from citeloom.domain.models import IndexPoint
from citeloom.entrypoints.cli import app
from citeloom.services.query import QueryOptions
from citeloom.services.transfer import export_project, import_project
from citeloom.services.usecases.query import QueryResponse
from tests.conftest import EXAMPLES, ROOT, write_config
from tests.fakes import FakeIndex

pytestmark = pytest.mark.real

REFERENCES = ROOT / "references" / "example.json"
QUERIES = [
    "how fast do restored salt marshes accrete sediment",
    "quiet hours in shared offices",
    "field notebooks",
    '"salt marsh"',
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def answers(settings, index) -> list[list[tuple[str, float, str]]]:
    service = bootstrap.query_service(settings, "papers", index)
    out = []
    for query in QUERIES:
        report = service.search(query, QueryOptions(top_k=10, per_doc=None))
        out.append(
            [
                (r["chunk_id"], r["score"], r["text"])
                for r in QueryResponse.from_report(report).dump()["results"]
            ]
        )
    return out


def assert_same_answers(got: list, expected: list) -> None:
    """The same passages in the same order; scores equal within float noise (an engine may
    renormalise a stored vector, which moves a cosine in its sixth decimal)."""
    assert [[(c, t) for c, _, t in ranked] for ranked in got] == [
        [(c, t) for c, _, t in ranked] for ranked in expected
    ]
    for ranked, want in zip(got, expected, strict=True):
        assert [s for _, s, _ in ranked] == pytest.approx([s for _, s, _ in want], abs=1e-4)


def point_lines(path: Path) -> dict[str, dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["id"]: json.loads(line) for line in lines[1:]}


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("original")
    config = write_config(folder, REFERENCES)
    code, out = run("ingest", str(EXAMPLES), "-p", "papers", "-c", str(config))
    assert code == 0, out
    exported = folder / "papers.jsonl"
    code, out = run("export", str(exported), "-p", "papers", "-c", str(config))
    assert code == 0, out
    settings = load_settings(config)
    index = bootstrap.index(settings)
    try:
        expected = answers(settings, index)
    finally:
        index.close()
    return {"config": config, "settings": settings, "file": exported, "answers": expected}


def test_a_round_trip_through_a_server_answers_queries_identically(original, tmp_path):
    from qdrant_client import QdrantClient

    header = json.loads(original["file"].read_text(encoding="utf-8").splitlines()[0])
    assert header["format"] == "citeloom-export" and header["version"] == 2
    assert (
        header["embed_model"] == "fastembed/all-MiniLM-L6-v2-fp32" and header["dimensions"] == 384
    )
    assert header["tokenizer"].startswith("wordpiece:") and header["points"] > 10
    assert all(a for a in original["answers"])  # every query finds passages

    settings = original["settings"]
    server = QdrantIndex(ServerEngine(client=QdrantClient(":memory:")))
    model = settings.project["papers"].embedding_model
    tokenizer = bootstrap.tokenizer_id(settings, model)
    imported = import_project(server, "papers", "proj-papers", model, tokenizer, original["file"])
    assert imported.points == header["points"] and imported.documents == 3
    assert_same_answers(answers(settings, server), original["answers"])

    back = tmp_path / "from-server.jsonl"
    export_project(server, "papers", "proj-papers", tokenizer, back)
    first, second = point_lines(original["file"]), point_lines(back)
    assert sorted(first) == sorted(second)
    for pid, line in first.items():
        # an engine normalises a cosine vector again as it stores it: the last bit may move
        assert second[pid]["vector"] == pytest.approx(line["vector"], abs=1e-6)
        assert {**second[pid], "vector": None} == {**line, "vector": None}

    config = write_config(tmp_path, REFERENCES)
    code, out = run("import", str(back), "-p", "papers", "-c", str(config))
    assert code == 0, out
    assert f"imported {header['points']} chunks of 3 documents" in out
    settings2 = load_settings(config)
    index = bootstrap.index(settings2)
    try:
        assert_same_answers(answers(settings2, index), original["answers"])
    finally:
        index.close()
    # the imported project is a project like any other: a second import is refused
    code, out = run("import", str(back), "-p", "papers", "-c", str(config))
    assert code == 2 and "already holds" in out


def test_an_export_carries_printed_page_labels_and_a_version_1_export_still_imports(
    original, tmp_path
):
    lines = original["file"].read_text(encoding="utf-8").splitlines()
    payloads = [json.loads(line)["payload"] for line in lines[1:]]
    sources = {p["zotero"]["citekey"]: p["doc"]["page_label_source"] for p in payloads}
    assert {p["kind"] for p in payloads} == {"paper"}
    assert sources["ardel2023marsh"] == "printed", sources  # its pages say 117-124
    # the same file as citeloom wrote it before page labels: version 1, payloads without them
    old = tmp_path / "v1.jsonl"
    header = {**json.loads(lines[0]), "version": 1}
    points = []
    for line in lines[1:]:
        point = json.loads(line)
        point["payload"].pop("kind")
        for key in ("page_labels", "page_label_source"):
            point["payload"]["doc"].pop(key)
        points.append(json.dumps(point))
    old.write_text("\n".join([json.dumps(header), *points]) + "\n", encoding="utf-8")
    config = write_config(tmp_path, REFERENCES)
    code, out = run("import", str(old), "-p", "papers", "-c", str(config))
    assert code == 0, out
    code, out = run("query", "restored marshes", "-p", "papers", "-c", str(config), "--json")
    assert code == 0, out
    top = json.loads(out)["results"][0]
    # no labels stored: the PDF page stands in, and says so
    assert top["page_label_start"] == str(top["page_start"])
    assert top["page_label_source"] == "pdf-page"


def test_an_import_under_another_models_project_is_refused(original, tmp_path):
    config = write_config(
        tmp_path, REFERENCES, extra='embedding_model = "fastembed/all-MiniLM-L6-v2"'
    )
    code, out = run("import", str(original["file"]), "-p", "papers", "-c", str(config))
    assert code == 4, out  # the write guard
    assert "fastembed/all-MiniLM-L6-v2" in out and "nothing was imported" in out
    code, out = run("inspect", "-p", "papers", "-c", str(config), "--json")
    assert json.loads(out)["exists"] is False


def test_a_damaged_export_is_named_and_nothing_is_written(original, tmp_path):
    lines = original["file"].read_text(encoding="utf-8").splitlines()
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([*lines[:5], lines[5][:40], *lines[6:]]) + "\n")
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("\n".join(lines[:-3]) + "\n")
    not_export = tmp_path / "notes.jsonl"
    not_export.write_text('{"hello": 1}\n')
    config = write_config(tmp_path, REFERENCES)
    for path, named in [
        (damaged, f"{damaged}: line 6"),
        (truncated, "the file is incomplete"),
        (not_export, "not a citeloom export"),
    ]:
        code, out = run("import", str(path), "-p", "papers", "-c", str(config))
        assert code == 2, out
        assert named in out and "Traceback" not in out
    code, out = run("inspect", "-p", "papers", "-c", str(config), "--json")
    assert json.loads(out)["exists"] is False


def test_import_to_a_server_that_is_down_fails_as_unavailable(original, tmp_path):
    config = write_config(tmp_path, REFERENCES)
    code, out = run(
        "import",
        str(original["file"]),
        "-p",
        "papers",
        "-c",
        str(config),
        "--to",
        "http://127.0.0.1:9",
    )
    assert code == 3, out
    code, out = run("import", str(original["file"]), "-p", "papers", "-c", str(config), "--to", "x")
    assert code == 2 and "--to 'x'" in out


def test_exporting_a_project_without_a_collection_says_so(tmp_path):
    config = write_config(tmp_path, REFERENCES)
    code, out = run("export", str(tmp_path / "out.jsonl"), "-p", "papers", "-c", str(config))
    assert code == 2 and "nothing to export" in out
    assert not (tmp_path / "out.jsonl").exists()


@pytest.fixture(params=["edge", "client-local", "fake"])
def index(request, tmp_path):
    if request.param == "edge":
        idx = QdrantIndex(EdgeEngine(tmp_path / "qdrant"))
    elif request.param == "client-local":
        from qdrant_client import QdrantClient

        idx = QdrantIndex(ServerEngine(client=QdrantClient(":memory:")))
    else:
        idx = FakeIndex()
    yield idx
    idx.close()


def test_scroll_points_pages_through_every_point_as_stored(index):
    stored = [
        IndexPoint(
            str(uuid.UUID(int=n * 7919)),
            [float(n + 1), 1.0, 0.0, 0.5],
            f"text {n}",
            {"project": "p", "doc_id": f"d{n % 2}", "fulltext": f"text {n}"},
            ([n + 1, 900], [1.0, 0.5]),
        )
        for n in range(5)
    ]
    assert index.scroll_points("none") == ([], None)
    index.ensure_collection("c", "m", 4, project="p")
    index.upsert_points("c", stored)
    seen: list[IndexPoint] = []
    offset, pages = None, 0
    while True:
        page, offset = index.scroll_points("c", offset, 2)
        seen += page
        pages += 1
        if offset is None:
            break
    assert pages == 3
    assert [p.id for p in seen] == sorted(p.id for p in stored)  # in id order, each once
    by_id = {p.id: p for p in seen}
    for point in stored:
        got = by_id[point.id]
        norm = sum(x * x for x in point.vector) ** 0.5
        assert got.vector == pytest.approx([x / norm for x in point.vector], abs=1e-6) or (
            got.vector == point.vector  # the fake keeps vectors as given
        )
        assert got.sparse == point.sparse and got.payload == point.payload


def test_an_export_of_an_empty_file_name_fails_cleanly(tmp_path):
    with pytest.raises(ConfigError, match="cannot write the export"):
        index = FakeIndex()
        index.ensure_collection("c", "m", 4, project="p")
        export_project(index, "p", "c", None, tmp_path / "missing-folder" / "out.jsonl")


# ---------------------------------------------------------------- export targets
def _device(path: Path) -> Path:
    """A character device of our own (the kernel's /dev/full: every write fails), so the
    test never risks the machine's real /dev/full."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a device node here ({error})")
    return path


def _targets(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Export targets that are not regular files, each with what the refusal calls it."""
    real = tmp_path / "real.jsonl"
    real.write_text("someone else's file\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    afile = tmp_path / "afile"
    afile.write_text("a file, not a folder\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return {
        "link": (link, "is a symbolic link"),
        "dangling link": (dangling, "is a symbolic link"),
        "link to a folder": (_link(tmp_path / "to-folder", folder), "is a symbolic link"),
        "pipe": (fifo, "is a named pipe (FIFO)"),
        "folder": (folder, "is a folder"),
        "file as a folder": (afile / "out.jsonl", f"{afile} is a file, not a folder"),
    }


def _link(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


def _snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every entry of the folder: its mode (a link as a link) and its content or link."""
    seen = {}
    for entry in sorted(folder.iterdir()):
        mode = os.lstat(entry).st_mode
        if stat.S_ISLNK(mode):
            seen[entry.name] = (mode, os.readlink(entry))
        elif stat.S_ISREG(mode):
            seen[entry.name] = (mode, entry.read_text())
        else:
            seen[entry.name] = (mode, "")
    return seen


@pytest.mark.parametrize(
    "kind",
    ["link", "dangling link", "link to a folder", "pipe", "device", "folder", "file as a folder"],
)
def test_export_refuses_a_target_that_is_not_a_regular_file_and_leaves_it_as_it_was(
    original, tmp_path, kind
):
    targets = _targets(tmp_path)
    if kind == "device":
        targets["device"] = (_device(tmp_path / "full"), "is a character device")
    target, named = targets[kind]
    before = _snapshot(tmp_path)
    code, out = run("export", str(target), "-p", "papers", "-c", str(original["config"]))
    assert code == 2, out
    assert str(target) in out and named in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1  # one line: the path, what it is, the fix
    assert _snapshot(tmp_path) == before  # nothing replaced, no temporary file left


def test_export_replaces_a_regular_file_whole_keeping_its_permissions(original, tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("an older export\n")
    target.chmod(0o640)
    code, out = run("export", str(target), "-p", "papers", "-c", str(original["config"]))
    assert code == 0, out
    assert point_lines(target) == point_lines(original["file"])
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_an_interrupted_export_leaves_the_old_file_and_no_temporary_one(tmp_path):
    class Interrupted(dict):
        """A payload whose serialisation is cut short, as by Ctrl-C mid-export."""

        def items(self):
            raise KeyboardInterrupt

    index = FakeIndex()
    index.ensure_collection("c", "m", 4, project="p")
    payload = {"project": "p", "doc_id": "d", "fulltext": "t"}
    index.upsert_points(
        "c",
        [
            IndexPoint(str(uuid.UUID(int=1)), [1.0, 0.0, 0.0, 0.0], "t", payload),
            IndexPoint(str(uuid.UUID(int=2)), [0.0, 1.0, 0.0, 0.0], "t", Interrupted(payload)),
        ],
    )
    target = tmp_path / "out.jsonl"
    target.write_text("an older export\n")
    with pytest.raises(KeyboardInterrupt):
        export_project(index, "p", "c", None, target)
    assert target.read_text() == "an older export\n"
    assert list(tmp_path.iterdir()) == [target]
