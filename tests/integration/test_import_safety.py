"""`citeloom import` trusts nothing in the file it is given: every line is checked before the
first write, and a refusal names the line and the field (exit 2), never a traceback, with the
index left exactly as it was. Real engine, real CLI, a real export of the example papers."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from citeloom.adapters.qdrant_edge_index import EdgeIndex
from citeloom.entrypoints.cli import app
from tests.conftest import EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real

REFERENCES = ROOT / "references" / "example.json"
Change = Callable[[dict[str, Any], list[dict[str, Any]]], None]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def two_projects(folder: Path) -> Path:
    """'papers' to export from and 'copy', an empty project of the same model, to import into."""
    copy_project = f'\n[project."copy"]\ncollection = "proj-copy"\nreferences_json = "{REFERENCES}"'
    return write_config(folder, REFERENCES, extra=copy_project)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("exported")
    config = two_projects(folder)
    code, out = run("ingest", str(EXAMPLES), "-p", "papers", "-c", str(config))
    assert code == 0, out
    file = folder / "papers.jsonl"
    code, out = run("export", str(file), "-p", "papers", "-c", str(config))
    assert code == 0, out
    lines = file.read_text(encoding="utf-8").splitlines()
    return {
        "dir": folder,
        "config": str(config),
        "file": file,
        "header": json.loads(lines[0]),
        "points": [json.loads(line) for line in lines[1:]],
    }


def written(exported: dict[str, Any], name: str, change: Change) -> Path:
    """The real export with ``change`` applied to a copy of its header and points."""
    header, points = copy.deepcopy(exported["header"]), copy.deepcopy(exported["points"])
    change(header, points)
    path = exported["dir"] / name
    rows = [json.dumps(header), *(json.dumps(p) for p in points)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def index_state(folder: Path) -> dict[str, list[str]]:
    """Every collection folder and alias of the index, with the ids of its points."""
    qdrant = folder / "var" / "qdrant"
    index = EdgeIndex(qdrant)
    try:
        state: dict[str, list[str]] = {}
        for entry in sorted(qdrant.iterdir()):
            if entry.is_dir():
                state[entry.name] = sorted(p.id for p in _points(index, entry.name))
            elif not entry.name.endswith((".lock", ".wait")):
                state[entry.name] = [entry.read_text()]
        return state
    finally:
        index.close()


def _points(index: EdgeIndex, collection: str) -> list[Any]:
    points, offset = [], None
    while True:
        page, offset = index.scroll_points(collection, offset, 256)
        points += page
        if offset is None:
            return points


def set_at(path: str, value: Any) -> Change:
    """Set ``payload.source.path`` (or any dotted key) of point 3 (line 5) to ``value``."""

    def change(header: dict[str, Any], points: list[dict[str, Any]]) -> None:
        *parents, key = path.split(".")
        holder = points[3]
        for part in parents:
            holder = holder[part]
        holder[key] = value

    return change


def drop_at(path: str) -> Change:
    def change(header: dict[str, Any], points: list[dict[str, Any]]) -> None:
        *parents, key = path.split(".")
        holder = points[3]
        for part in parents:
            holder = holder[part]
        del holder[key]

    return change


def another_models_length(header: dict[str, Any], points: list[dict[str, Any]]) -> None:
    """Unit vectors of 100 dimensions: a sound file of another model under this model's id."""
    header["dimensions"] = 100
    for point in points:
        head = point["vector"][:100]
        length = math.sqrt(sum(x * x for x in head))
        point["vector"] = [x / length for x in head]


def duplicated(header: dict[str, Any], points: list[dict[str, Any]]) -> None:
    points.append(copy.deepcopy(points[0]))
    header["points"] += 1


# what the issue found, each with the line and the words the refusal must hold
CASES: dict[str, tuple[Change, str, str]] = {
    "a 100-dimension file": (another_models_length, "line 1", "100 dimensions"),
    "dimensions as a string": (
        lambda h, p: h.update(dimensions="384"),
        "line 1",
        "dimensions is '384' (a string)",
    ),
    "dimensions null": (lambda h, p: h.update(dimensions=None), "line 1", "dimensions is null"),
    "points as a string": (
        lambda h, p: h.update(points=str(h["points"])),
        "line 1",
        "points is '",
    ),
    "BM25 values shorter than indices": (
        lambda h, p: p[3]["bm25"]["values"].pop(),
        "line 5",
        "bm25 has",
    ),
    "a negative BM25 index": (set_at("bm25.indices", [-5]), "line 5", "bm25"),
    "a non-integer BM25 index": (
        lambda h, p: p[3]["bm25"]["indices"].__setitem__(0, 1.5),
        "line 5",
        "bm25.indices[0] is 1.5",
    ),
    "a NaN BM25 value": (
        lambda h, p: p[3]["bm25"]["values"].__setitem__(0, math.nan),
        "line 5",
        "bm25.values[0] is nan",
    ),
    "an infinite vector value": (
        lambda h, p: p[3]["vector"].__setitem__(7, math.inf),
        "line 5",
        "vector[7] is inf",
    ),
    "an id that is no UUID": (set_at("id", "not-a-uuid"), "line 5", "id is 'not-a-uuid'"),
    "a duplicate id": (duplicated, "line 2", "is also the id of line 2"),
    "an empty payload": (set_at("payload", {}), "line 5", "payload is empty"),
    "no project": (drop_at("payload.project"), "line 5", "payload lacks project"),
    "no doc_id": (drop_at("payload.doc_id"), "line 5", "payload lacks doc_id"),
    "no source.path": (drop_at("payload.source.path"), "line 5", "payload lacks source.path"),
    "no chunk_index": (drop_at("payload.chunk_index"), "line 5", "payload lacks chunk_index"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_export_is_refused_naming_the_line_and_the_field(exported, case):
    change, line, words = CASES[case]
    path = written(exported, "damaged.jsonl", change)
    before = index_state(exported["dir"])
    code, out = run("import", str(path), "-p", "copy", "-c", exported["config"])
    assert code == 2, out
    if case == "a duplicate id":
        line = f"line {len(exported['points']) + 2}"  # the second of the two, naming the first
    assert f"{path}: {line}: " in out and words in out, out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1
    assert index_state(exported["dir"]) == before  # nothing written, nothing created


# ---------------------------------------------------------------- hostile variants
WRONG_TYPES = [None, True, "384", 3.5, [], {}, [1, "x"], {"a": 1}]
BAD_NUMBERS = [-1, -(2**70), 2**70, 10**400, 1e39, -1e39, math.nan, math.inf, -math.inf]
# every place a variant may damage, each with values that are wrong there whatever the rest
# of the file holds (a value that could be right, such as another chunk_index below the
# document's chunk_total, is never generated: the property is that nothing wrong goes in)
HOSTILE: dict[str, list[Any]] = {
    "header.format": [None, 1, "citeloom-export-2", {}],
    "header.version": [None, 0, 3, 2.0, "2", True],
    "header.embed_model": [None, 0, "", [], {}],
    "header.dimensions": [None, 0, "384", 384.0, *BAD_NUMBERS],
    "header.points": [None, "427", 1.0, -1, 2**70, 10**400, math.nan],
    "header.tokenizer": [0, True, [], {"wordpiece": 1}],
    "id": ["not-a-uuid", "", None, 7, [], {}, "123e4567-e89b-12d3-a456"],
    "vector": [None, "x", {}, [], [0.0] * 384, [1.0]],
    "vector.*": [*WRONG_TYPES, *BAD_NUMBERS, 1e6],
    "bm25": [None, "x", [], 5],
    "bm25.indices": [None, "x", {}, 5],
    "bm25.indices.*": [*WRONG_TYPES, *BAD_NUMBERS, 2**32],
    "bm25.values": [None, "x", {}, 5],
    "bm25.values.*": [*WRONG_TYPES, *BAD_NUMBERS, 0, -0.5],
    "payload": [None, "x", [], 5, {}],
    "payload.project": [None, "", 5, [], {}],
    "payload.doc_id": [None, "", 5, [], {}],
    "payload.chunk_index": [None, "3", 3.0, -1, 2**40, 2**70, 10**400, True],
    "payload.chunk_total": [None, "3", 3.0, -1, 10**400],
    "payload.source": [None, "x", [], 5],
    "payload.source.path": [None, "", 5, [], {}],
    "payload.fulltext": [None, 5, [], {}],
    "payload.kind": [None, "book", 1],
    "payload.doc": ["x", [], 5],
    "payload.doc.page_start": [0, -3, "2", 2.5, 10**400],
    "payload.doc.section_path": ["x", [1], {}],
    "payload.doc.authors": ["Ardel, Ines", [None]],
    "payload.doc.year": ["2023", 2023.5, 2**70, math.nan],
    "payload.zotero": ["x", [], 5],
    "payload.zotero.tags": ["salt marsh", [1]],
    "payload.zotero.candidates": ["x", [{"citekey": 1}], [{"score": 0.5}]],
    "text": [None, 5, [], {}],
}
REQUIRED = [
    "header.format",
    "header.version",
    "header.embed_model",
    "header.dimensions",
    "header.points",
    *("id", "vector", "bm25", "payload", "text", "bm25.indices", "bm25.values"),
    *("payload.project", "payload.doc_id", "payload.chunk_index", "payload.source"),
    *("payload.source.path", "payload.fulltext"),
]


def _holder(header: dict, points: list[dict], where: str, point: int) -> tuple[Any, Any]:
    """The object or list holding ``where`` (in the header, or in the point), and its key;
    ``x.*`` is an entry in the middle of the list ``x``."""
    *parents, key = where.removeprefix("header.").split(".")
    holder: Any = header if where.startswith("header.") else points[point]
    for part in parents:
        holder = holder[part]
    return (holder, len(holder) // 2) if key == "*" else (holder, key)


@st.composite
def damage(draw: st.DrawFn, count: int) -> tuple[str, tuple]:
    """One hostile change to a real export of ``count`` points: what it is, in words, and
    the change itself, made on the parsed rows or on the bytes of one line."""
    point, row = draw(st.integers(0, count - 1)), draw(st.integers(0, count))
    kind = draw(st.sampled_from(["value", "remove", "cut", "junk", "not utf-8", "lines"]))
    if kind == "value":
        where = draw(st.sampled_from(list(HOSTILE)))
        value = draw(st.sampled_from(HOSTILE[where]))
        return f"{where} of point {point} = {value!r}", (kind, where, point, value)
    if kind == "remove":
        where = draw(st.sampled_from(REQUIRED))
        return f"{where} of point {point} removed", (kind, where, point, None)
    if kind == "cut":
        share = draw(st.floats(0, 0.999))
        return f"line {row + 1} cut at {share:.0%}", (kind, None, row, share)
    if kind == "junk":
        junk = draw(st.binary(max_size=120))
        return f"line {row + 1} replaced by {junk!r}", (kind, None, row, junk)
    if kind == "not utf-8":
        junk = b"\xff" + draw(st.binary(max_size=20))  # never UTF-8
        share = draw(st.floats(0, 1))
        return f"{junk!r} put into line {row + 1}", (kind, None, row, (junk, share))
    how = draw(st.sampled_from(["delete", "duplicate", "miscount"]))
    return f"{how} point {point}", (kind, how, point, None)


def hostile_bytes(exported: dict[str, Any], change: tuple) -> bytes:
    kind, where, at, value = change
    header, points = copy.deepcopy(exported["header"]), copy.deepcopy(exported["points"])
    if kind == "value":
        holder, key = _holder(header, points, where, at)
        holder[key] = value
    elif kind == "remove":
        holder, key = _holder(header, points, where, at)
        del holder[key]
    elif (kind, where) == ("lines", "delete"):
        del points[at]
    elif (kind, where) == ("lines", "duplicate"):
        points.insert(at, copy.deepcopy(points[at]))
    elif kind == "lines":
        header["points"] += 1 + at
    rows = [json.dumps(header).encode(), *(json.dumps(p).encode() for p in points)]
    if kind == "cut":
        rows[at] = rows[at][: int(len(rows[at]) * value)]
    elif kind == "junk":
        rows[at] = value
    elif kind == "not utf-8":
        junk, share = value
        cut = int(len(rows[at]) * share)
        rows[at] = rows[at][:cut] + junk + rows[at][cut:]
    return b"\n".join(rows) + b"\n"


@pytest.fixture(scope="module")
def baseline(exported: dict[str, Any]) -> dict[str, list[str]]:
    return index_state(exported["dir"])


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_hostile_variant_of_a_real_export_gets_in_or_crashes(exported, baseline, data):
    what, change = data.draw(damage(len(exported["points"])), label="damage")
    path = exported["dir"] / "hostile.jsonl"
    path.write_bytes(hostile_bytes(exported, change))
    code, out = run("import", str(path), "-p", "copy", "-c", exported["config"])
    assert code == 2, f"{what}: exit {code}: {out}"
    assert out.startswith("error: ") and str(path) in out, f"{what}: {out}"
    assert "Traceback" not in out and "internal error" not in out, f"{what}: {out}"
    assert index_state(exported["dir"]) == baseline, what
