"""Ingest that is incremental, resumable and safe under faults and bad input (real engine)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.domain.ids import sha256_of_file
from citeloom.entrypoints.cli import app
from tests.conftest import CITELOOM, EXAMPLES, PAPERS, write_config

pytestmark = pytest.mark.real

SENTENCES = [
    "Salt marshes bury carbon in their sediments for centuries.",
    "Quiet hours reduce interruptions in open-plan offices.",
    "Field notebooks need page identifiers to stay traceable.",
    "Restored marshes accrete sediment faster than natural ones.",
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def notes(folder: Path, count: int, version: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"note{i:02d}.txt"
        body = " ".join(SENTENCES[(i + j) % 4] for j in range(6))
        path.write_text(f"Note {i} version {version}. {body}\n\nSecond paragraph {i}.", "utf-8")
        paths.append(path)
    return paths


def long_notes(folder: Path, count: int, version: int = 0) -> list[Path]:
    """Notes of three to four chunks each, so that a killed run can leave one half-written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"long{i:02d}.txt"
        body = " ".join(
            f"Observation {k} of note {i} (version {version}): {SENTENCES[(i + k) % 4]}"
            for k in range(45)
        )
        path.write_text(body, "utf-8")
        paths.append(path)
    return paths


def stored(project: dict) -> list[dict]:
    """Every chunk's payload, read from the shard itself (not through citeloom's summaries)."""
    from qdrant_edge import EdgeShard, ScrollRequest

    shard = EdgeShard.load(str(project["dir"] / "var" / "qdrant" / "proj-papers" / "shard"))
    try:
        payloads, offset = [], None
        while True:
            records, offset = shard.scroll(ScrollRequest(offset=offset, limit=512))
            payloads += [r.payload for r in records]
            if offset is None:
                return payloads
    finally:
        shard.close()


@pytest.fixture
def project(tmp_path: Path) -> dict:
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    config = write_config(tmp_path, refs, extra="")
    return {"dir": tmp_path, "config": str(config)}


def ingest(project: dict, *paths: Path, extra: tuple[str, ...] = ()) -> tuple[int, dict]:
    code, out = run(
        "ingest", *map(str, paths), "-p", "papers", "-c", project["config"], "--json", *extra
    )
    return code, json.loads(out) if out.strip().startswith("{") else {"raw": out}


def inspect(project: dict) -> dict:
    return json.loads(run("inspect", "-p", "papers", "-c", project["config"], "--json")[1])


# ---------------------------------------------------------------- incremental
def test_unchanged_folder_changes_nothing_renames_are_recognised_and_prune_removes(project):
    folder = project["dir"] / "notes"
    paths = notes(folder, 4)
    code, first = ingest(project, folder)
    assert code == 0 and first["totals"]["ingested"] == 4
    before = inspect(project)

    code, again = ingest(project, folder)
    assert [d["status"] for d in again["documents"]] == ["skipped"] * 4
    assert inspect(project)["points"] == before["points"]
    audit = project["dir"] / "var" / "audit" / f"{again['correlation_id']}.jsonl"
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    stages = {k for e in events if e["event"] == "document" for k in e["durations_s"]}
    assert stages == {"hash"}  # recognised by its hash: nothing converted or embedded

    renamed = folder / "renamed.txt"
    paths[0].rename(renamed)
    code, moved = ingest(project, folder)
    statuses = {Path(d["path"]).name: d["status"] for d in moved["documents"]}
    assert statuses["renamed.txt"] == "skipped"
    after = inspect(project)
    assert after["points"] == before["points"]
    assert str(renamed) in {d["path"] for d in after["documents"]}
    assert str(paths[0]) not in {d["path"] for d in after["documents"]}

    paths[1].unlink()
    code, pruned = ingest(project, folder, extra=("--prune",))
    assert pruned["pruned"] == [str(paths[1])]
    assert str(paths[1]) not in {d["path"] for d in inspect(project)["documents"]}


def stored_paths(project: dict) -> dict[str, set[str]]:
    """Stored path -> the content hashes stored under it, read from the shard itself."""
    held: dict[str, set[str]] = {}
    for payload in stored(project):
        held.setdefault(payload["source"]["path"], set()).add(payload["source"]["sha256"])
    return held


@pytest.mark.parametrize("change", ["rename", "move", "delete_the_original_of_a_copy"])
def test_prune_keeps_a_document_whose_file_was_renamed_moved_or_has_a_copy(project, change):
    folder = project["dir"] / "notes"
    original = notes(folder, 2)[0]
    ingest(project, folder)
    if change == "delete_the_original_of_a_copy":
        shutil.copy(original, folder / "zz-copy.txt")
        code, report = ingest(project, folder)  # the copy is recognised, not stored twice
        assert report["totals"]["skipped"] == 3
    points = inspect(project)["points"]
    if change == "rename":
        now = original.rename(folder / "renamed.txt")
    elif change == "move":
        (folder / "sub").mkdir()
        now = original.rename(folder / "sub" / original.name)
    else:
        original.unlink()
        now = folder / "zz-copy.txt"
    code, report = ingest(project, folder, extra=("--prune",))
    assert code == 0 and report["pruned"] == []
    held = stored_paths(project)
    assert held[str(now)] == {sha256_of_file(now)} and str(original) not in held
    assert inspect(project)["points"] == points
    code, again = ingest(project, folder)
    assert again["totals"]["ingested"] == 0  # nothing had to be embedded again


@pytest.mark.parametrize("copy_name", ["a-copy.txt", "z-copy.txt"])  # before and after it
def test_editing_a_file_keeps_the_stored_copy_of_its_old_content(project, copy_name):
    folder = project["dir"] / "notes"
    original = notes(folder, 1)[0]
    ingest(project, folder)
    copy = folder / copy_name
    shutil.copy(original, copy)
    original.write_text("A new text about tidal energy in lagoons.", "utf-8")
    code, report = ingest(project, folder)
    assert code == 0, report
    assert stored_paths(project) == {
        str(copy): {sha256_of_file(copy)},
        str(original): {sha256_of_file(original)},
    }


def test_identical_new_files_are_stored_once(project):
    folder = project["dir"] / "notes"
    original = notes(folder, 1)[0]
    shutil.copy(original, folder / "same.txt")
    code, report = ingest(project, folder)
    statuses = {Path(d["path"]).name: d["status"] for d in report["documents"]}
    assert code == 0 and statuses == {"note00.txt": "ingested", "same.txt": "skipped"}
    assert stored_paths(project) == {str(original): {sha256_of_file(original)}}


def test_two_files_that_swap_names_keep_their_chunks(project):
    folder = project["dir"] / "notes"
    first, second = notes(folder, 2)
    ingest(project, folder)
    points = inspect(project)["points"]
    first.rename(folder / "tmp.txt")
    second.rename(first)
    (folder / "tmp.txt").rename(second)
    code, report = ingest(project, folder, extra=("--prune",))
    assert code == 0 and report["totals"]["skipped"] == 2 and report["pruned"] == []
    assert stored_paths(project) == {str(f): {sha256_of_file(f)} for f in (first, second)}
    assert inspect(project)["points"] == points


def test_a_changed_file_replaces_its_old_chunks(project):
    folder = project["dir"] / "notes"
    path = notes(folder, 1)[0]
    ingest(project, folder)
    path.write_text("A completely new text about tidal energy in lagoons.", "utf-8")
    code, report = ingest(project, folder)
    assert code == 0 and report["documents"][0]["status"] == "ingested"
    (doc,) = inspect(project)["documents"]
    assert doc["chunks"] == 1 and doc["sha256"] != ""
    _, out = run("query", "version 0", "-p", "papers", "-c", project["config"], "--json")
    assert all("version 0" not in r["text"] for r in json.loads(out)["results"])


# ---------------------------------------------------------------- bad input
def encrypted_pdf(path: Path) -> None:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), encrypt=pdfencrypt.StandardEncryption("secret", canPrint=0))
    pdf.drawString(100, 700, "Secret findings about marsh carbon.")
    pdf.save()


@pytest.mark.shared
def test_bad_files_each_fail_with_the_fix_and_the_batch_goes_on(project):
    inbox = project["dir"] / "inbox"
    inbox.mkdir()
    (inbox / "good.pdf").symlink_to(EXAMPLES / "tanabe2022_field_notebooks.pdf")
    (inbox / "corrupt.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage")
    (inbox / "truncated.pdf").write_bytes(
        (PAPERS / "grobid_submission_363.pdf").read_bytes()[:3000]
    )
    encrypted_pdf(inbox / "encrypted.pdf")
    (inbox / "empty.pdf").write_bytes(b"")
    (inbox / "notreally.pdf").write_text("<html><body>a web page</body></html>")
    (inbox / "unreadable.pdf").symlink_to(inbox / "does-not-exist.pdf")
    code, report = ingest(project, inbox)
    assert code == 1
    errors = {Path(d["path"]).name: d["error"] for d in report["documents"]}
    fixes = {
        "corrupt.pdf": "the PDF is damaged and cannot be parsed (Failed to load document "
        "(PDFium: Data format error)). Re-download or re-export it.",
        "truncated.pdf": "the PDF is damaged and cannot be parsed (Failed to load document "
        "(PDFium: Data format error)). Re-download or re-export it.",
        "encrypted.pdf": "the PDF is encrypted. Save an unprotected copy (e.g. qpdf --decrypt "
        "in.pdf out.pdf) and ingest that.",
        "empty.pdf": "the file is empty (0 bytes). Re-download or re-export it.",
        "notreally.pdf": "not a PDF (no %PDF header). Rename it with its real extension or "
        "remove it.",
        "unreadable.pdf": "cannot be read (a broken link, or the file was removed). Restore the "
        "file or remove the link.",
    }
    assert errors == {"good.pdf": None} | {
        name: f"{inbox / name}: {fix}" for name, fix in fixes.items()
    }
    assert report["totals"] == {
        "documents": 7,
        "ingested": 1,
        "skipped": 0,
        "failed": 6,
        "chunks": report["totals"]["chunks"],
    }
    audit = project["dir"] / "var" / "audit" / f"{report['correlation_id']}.jsonl"
    failed = [
        e for e in map(json.loads, audit.read_text().splitlines()) if e.get("status") == "failed"
    ]
    assert len(failed) == 6


def test_a_pipe_or_a_device_given_by_name_is_refused_at_once_and_the_batch_goes_on(project):
    """A named pipe waits for a writer for ever and /dev/zero never ends: named on the command
    line, each is refused in one line before the index is opened, the other files go in, and
    the exit code is the one of a batch with failed documents. A timeout turns a hang into a
    failure."""
    inbox = project["dir"] / "inbox"
    good = notes(inbox, 1)[0]
    fifo = inbox / "fifo.pdf"
    os.mkfifo(fifo)
    zero = inbox / "zero.pdf"
    zero.symlink_to("/dev/zero")
    command = [CITELOOM, "ingest", "-p", "papers", "-c", project["config"]]
    done = subprocess.run(
        [*command, str(fifo), str(zero), str(good), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    refusals = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert refusals == [
        f"error: {fifo}: a named pipe (FIFO), not a document file, so it was not read "
        "(citeloom reads regular files only). Save the document to a regular file and pass that.",
        f"error: {zero}: a link to /dev/zero, a character device, not a document file, so it "
        "was not read (citeloom reads regular files only). Save the document to a regular file "
        "and pass that.",
    ]
    report = json.loads(done.stdout)
    statuses = {Path(d["path"]).name: d["status"] for d in report["documents"]}
    assert statuses == {"note00.txt": "ingested", "fifo.pdf": "failed", "zero.pdf": "failed"}
    audit = project["dir"] / "var" / "audit" / f"{report['correlation_id']}.jsonl"
    events = [e for e in map(json.loads, audit.read_text().splitlines()) if e.get("status")]
    assert sorted(Path(e["path"]).name for e in events if e["status"] == "failed") == [
        "fifo.pdf",
        "zero.pdf",
    ]
    # named alone while another process holds the index: refused at once, never "busy"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(project["dir"] / "var" / "qdrant")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        alone = subprocess.run(
            [*command, str(fifo)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "CITELOOM_QDRANT__BUSY_TIMEOUT_S": "30"},
            check=False,
        )
        assert alone.returncode == 1 and alone.stdout == ""
        assert alone.stderr.strip() == refusals[0]
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)


def test_each_document_line_names_its_file_once_and_what_changed_besides(project):
    folder = project["dir"] / "notes"
    first, second, third = notes(folder, 3)
    ingest(project, folder)
    first.rename(folder / "renamed.txt")
    shutil.copy(second, folder / "second-copy.txt")
    shutil.copy(second, third)  # third's old content is nowhere now: its chunks must go
    (folder / "empty.pdf").write_bytes(b"")
    code, out = run("ingest", str(folder), "-p", "papers", "-c", project["config"])
    assert code == 1, out
    lines = {line.split()[2].rstrip(":"): line for line in out.splitlines() if line[:1] == "["}
    failed = lines[str(folder / "empty.pdf")]
    assert failed.count("empty.pdf") == 1 and "the file is empty (0 bytes)" in failed
    assert f"(renamed from {first})" in lines[str(folder / "renamed.txt")]
    assert f"(same content as {second}, stored once)" in lines[str(folder / "second-copy.txt")]
    assert "removed a stale copy (" in lines[str(third)]


@pytest.mark.parametrize(
    ("setup", "code", "message"),
    [
        ("empty_folder", 2, "no PDF, DOCX, HTML, Markdown or text files found"),
        ("bad_toml", 2, "not valid TOML"),
        ("bad_csl", 2, "not valid JSON (line 1, column 2"),
        ("csl_structure", 2, "refs.json: $[1].author[0]"),
        ("bad_bib", 2, "refs.bib: not valid BibTeX (line 3: syntax error: premature end of file)"),
        ("unknown_project", 2, "unknown project 'nope'"),
        ("unreachable_qdrant", 3, "Qdrant at http://127.0.0.1:9 is unavailable"),
    ],
)
def test_bad_setups_fail_with_one_message_and_a_documented_code(project, setup, code, message):
    folder = project["dir"] / "in"
    notes(folder, 1)
    config, name = project["config"], "papers"
    if setup == "empty_folder":
        folder = project["dir"] / "empty"
        folder.mkdir()
    elif setup == "bad_toml":
        Path(config).write_text("[paths\nraw_dir = 1")
    elif setup == "bad_csl":
        (project["dir"] / "refs.json").write_text("{not json")
    elif setup == "csl_structure":
        entries = [
            {"id": "a2020", "title": "A", "type": "article"},
            {"id": "b2021", "title": "B", "type": "article", "author": ["Smith, J."]},
        ]
        (project["dir"] / "refs.json").write_text(json.dumps(entries))
    elif setup == "bad_bib":
        (project["dir"] / "refs.bib").write_text("@article{a, title = {A}}\n@misc{b,\n")
        config = str(write_config(project["dir"], project["dir"] / "refs.bib"))
    elif setup == "unknown_project":
        name = "nope"
    elif setup == "unreachable_qdrant":
        config = str(
            write_config(project["dir"], project["dir"] / "refs.json", url="http://127.0.0.1:9")
        )
    result = subprocess.run(
        [CITELOOM, "ingest", str(folder), "-p", name, "-c", config],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("mistake", ["missing path", "empty folder", "--citekey for a folder"])
def test_a_usage_error_leaves_no_audit_behind(project, mistake):
    folder = project["dir"] / "in"
    notes(folder, 2)
    args = {
        "missing path": [str(project["dir"] / "nowhere")],
        "empty folder": [str(project["dir"] / "in" / "empty")],
        "--citekey for a folder": [str(folder), "--citekey", "smith2020"],
    }[mistake]
    (folder / "empty").mkdir()
    code, out = run("ingest", *args, "-p", "papers", "-c", project["config"])
    assert code == 2, out
    audits = project["dir"] / "var" / "audit"
    assert not audits.exists() or list(audits.iterdir()) == []
    assert run("audit", "list", "-c", project["config"]) == (0, "")


# ---------------------------------------------------------------- concurrency
# Holds the project's shard until the test closes its stdin: no sleep that a slow cold start
# of the waiting process could outlive.
HOLD = """
import sys
from pathlib import Path
from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
index = QdrantIndex(EdgeEngine(Path(sys.argv[1])))
index.ensure_collection("proj-papers", "fastembed/all-MiniLM-L6-v2-fp32", 384, project="papers")
print("holding", flush=True)
sys.stdin.read()
index.close()
print("released", flush=True)
"""


def test_a_second_process_waits_then_says_busy_and_the_shard_survives(project):
    folder = project["dir"] / "notes"
    notes(folder, 2)
    ingest(project, folder)
    points = inspect(project)["points"]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(project["dir"] / "var" / "qdrant")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "holding"
    env = {**os.environ, "CITELOOM_QDRANT__BUSY_TIMEOUT_S": "1"}
    for command in (["query", "salt marsh"], ["ingest", str(folder)]):
        started = time.monotonic()
        result = subprocess.run(
            [CITELOOM, *command, "-p", "papers", "-c", project["config"]],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert result.returncode == 3, result.stderr
        assert "in use by another citeloom process; waiting up to 1 s" in result.stderr
        assert "index busy after waiting 1 s" in result.stderr
        assert time.monotonic() - started >= 1
    holder.stdin.close()  # release the shard
    assert holder.stdout.readline().strip() == "released"
    assert holder.wait(timeout=60) == 0
    assert inspect(project)["points"] == points  # nothing lost, nothing corrupted


def test_a_query_during_an_ingest_answers_or_says_busy(project):
    folder = project["dir"] / "many"
    notes(folder, 40)
    writer = subprocess.Popen(
        [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", project["config"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline().startswith("[1/40]")  # the writer holds the shard now
    reader = subprocess.run(
        [CITELOOM, "query", "salt marsh carbon", "-p", "papers", "-c", project["config"]],
        capture_output=True,
        text=True,
        env={**os.environ, "CITELOOM_QDRANT__BUSY_TIMEOUT_S": "0.5"},
        check=False,
    )
    out, err = writer.communicate(timeout=180)
    assert writer.returncode == 0, err
    assert "40 ingested" in out  # the writer was not disturbed
    assert reader.returncode in (0, 3), reader.stderr
    assert "Traceback" not in reader.stderr
    if reader.returncode == 3:
        assert "index busy after waiting 0.5 s" in reader.stderr
    else:
        assert "[@" in reader.stdout or "no reference match" in reader.stdout


# ---------------------------------------------------------------- Ctrl-C
def test_ctrl_c_stops_after_the_current_document_and_reports(project):
    folder = project["dir"] / "many"
    notes(folder, 40)
    process = subprocess.Popen(
        [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", project["config"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = process.stdout.readline()
    assert first.startswith("[1/40]"), first + process.stderr.read()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "stopping after the current document" in err
    assert "documents left for the next run" in out
    report = inspect(project)
    assert 1 <= len(report["documents"]) < 40
    assert all(d["complete"] for d in report["documents"])
    cid = out.split("correlation id: ")[1].split()[0]
    audit = project["dir"] / "var" / "audit" / f"{cid}.jsonl"
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    documents = [e for e in events if e["event"] == "document"]
    assert len({e["path"] for e in documents}) == len(documents) == 40  # one event per file
    left = [e for e in documents if e["status"] == "interrupted"]
    assert len(left) == 40 - len(report["documents"])
    assert "run_interrupted" in {e["event"] for e in events}
    code, again = ingest(project, folder)
    assert code == 0 and again["totals"]["skipped"] == len(report["documents"])


# ---------------------------------------------------------------- a reader that goes away
@pytest.mark.parametrize("reader", ["head -1", "closed before the first line"])
def test_a_closed_stdout_lets_the_ingest_finish_quietly_with_an_honest_audit(project, reader):
    folder = project["dir"] / "many"
    notes(folder, 6)
    command = [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", project["config"]]
    if reader == "head -1":  # a real shell pipeline; citeloom's own status from PIPESTATUS
        result = subprocess.run(
            ["bash", "-c", f"{shlex.join(command)} | head -1; exit ${{PIPESTATUS[0]}}"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.stdout.startswith("[1/6] ingested") and result.stdout.count("\n") == 1
        code, stderr = result.returncode, result.stderr
    else:  # a pipe nobody reads: every write fails, from the first line on
        read_end, write_end = os.pipe()
        os.close(read_end)
        process = subprocess.Popen(command, stdout=write_end, stderr=subprocess.PIPE, text=True)
        os.close(write_end)
        stderr = process.communicate(timeout=300)[1]
        code = process.returncode
    assert code == 0, stderr
    assert "Traceback" not in stderr and "error" not in stderr.lower(), stderr
    assert len(inspect(project)["documents"]) == 6  # the work went on
    (audit,) = (project["dir"] / "var" / "audit").glob("*.jsonl")
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [e["status"] for e in events if e["event"] == "document"] == ["ingested"] * 6
    assert events[-1]["event"] == "run_finished"
    code, shown = run("audit", "show", audit.stem, "-c", project["config"])
    assert f"run {audit.stem}: finished" in shown and "6 ingested" in shown


# ---------------------------------------------------------------- kill -9
def assert_one_complete_copy_of_each(project: dict, files: list[Path]) -> None:
    from citeloom.domain.ids import sha256_of_file

    payloads = stored(project)
    by_path: dict[str, list[dict]] = {}
    for payload in payloads:
        by_path.setdefault(payload["source"]["path"], []).append(payload)
    assert set(by_path) == {str(f) for f in files}  # no stale or vanished file
    for file in files:
        chunks = by_path[str(file)]
        assert {c["source"]["sha256"] for c in chunks} == {sha256_of_file(file)}  # newest only
        assert len(chunks) == chunks[0]["chunk_total"] >= 3  # complete, no half copy
        assert sorted(c["chunk_index"] for c in chunks) == list(range(len(chunks)))


def test_kill_9_at_random_moments_never_leaves_more_or_less_than_one_copy(project):
    import random

    folder = project["dir"] / "kill"
    rng = random.Random(20261122)
    config = project["config"]
    audits = project["dir"] / "var" / "audit"
    for iteration in range(1, 21):
        long_notes(folder, 8, version=iteration)  # every file changes: every run rewrites
        process = subprocess.Popen(
            [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", config],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        # wait for a random number of documents to be done, then kill inside the next one
        for _ in range(rng.randrange(8)):
            process.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.25))
        process.kill()
        process.wait()
        process.stdout.close()
    runs = [
        [json.loads(line)["event"] for line in path.read_text().splitlines() if line.strip()]
        for path in audits.glob("*.jsonl")
    ]
    killed_mid_run = [r for r in runs if "document" in r and "run_finished" not in r]
    assert len(killed_mid_run) >= 15  # the kills did land while documents were written

    code, report = ingest(project, folder)
    assert code == 0, report
    assert_one_complete_copy_of_each(project, sorted(folder.glob("*.txt")))
    code, out = run("query", "version 7", "-p", "papers", "-c", config, "--json")
    assert not any("(version 7)" in r["text"] for r in json.loads(out)["results"])


def test_a_half_written_document_is_written_again(project):
    from qdrant_edge import EdgeShard, FieldCondition, Filter, MatchValue, UpdateOperation

    folder = project["dir"] / "notes"
    files = long_notes(folder, 2)
    ingest(project, folder)
    shard_dir = project["dir"] / "var" / "qdrant" / "proj-papers" / "shard"
    shard = EdgeShard.load(str(shard_dir))  # what a kill between two upserts leaves behind
    last = Filter(
        must=[
            FieldCondition(key="source.path", match=MatchValue(str(files[0]))),
            FieldCondition(key="chunk_index", match=MatchValue(2)),
        ]
    )
    shard.update(UpdateOperation.delete_points_by_filter(last))
    shard.flush()
    shard.close()
    half = next(d for d in inspect(project)["documents"] if d["path"] == str(files[0]))
    assert half["chunks"] == half["chunk_total"] - 1 and half["complete"] is False

    code, report = ingest(project, folder)
    statuses = {Path(d["path"]).name: d["status"] for d in report["documents"]}
    assert code == 0 and statuses == {"long00.txt": "ingested", "long01.txt": "skipped"}
    assert_one_complete_copy_of_each(project, files)


# ---------------------------------------------------------------- model change
def test_reindex_builds_a_new_collection_and_switches_only_when_complete(project):
    # the real second model: the int8 MiniLM (the default is fp32)
    other = "fastembed/all-MiniLM-L6-v2"
    folder = project["dir"] / "notes"
    notes(folder, 3)
    ingest(project, folder)
    old_ids = {
        r["chunk_id"]
        for r in json.loads(
            run("query", "marsh", "-p", "papers", "-c", project["config"], "--json")[1]
        )["results"]
    }
    code, out = run("reindex", "-p", "papers", "-m", other, "-c", project["config"], "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["switched"] and report["documents"] == 3 and report["built"] == "proj-papers@2"
    qdrant = project["dir"] / "var" / "qdrant"
    assert not (qdrant / "proj-papers").exists() and (qdrant / "proj-papers@2").exists()
    # the config still names the old model: the guard says what to do, nothing is mixed
    code, out = run("query", "marsh", "-p", "papers", "-c", project["config"])
    assert code == 4 and f"'{other}'" in out
    code, out = run("ingest", str(folder), "-p", "papers", "-c", project["config"])
    assert code == 4 and f"'{other}'" in out and "nothing was written" in out
    config = Path(project["config"])
    config.write_text(config.read_text() + f'embedding_model = "{other}"\n')
    code, out = run("query", "marsh", "-p", "papers", "-c", project["config"], "--json")
    assert code == 0
    new_ids = {r["chunk_id"] for r in json.loads(out)["results"]}
    assert new_ids and not new_ids & old_ids


def test_a_reindex_that_cannot_finish_leaves_the_old_collection_serving(project, monkeypatch):
    folder = project["dir"] / "notes"
    paths = notes(folder, 2)
    ingest(project, folder)
    before = inspect(project)
    paths[0].unlink()  # its conversion is cached, but clear the cache too: it cannot be rebuilt
    for cached in (project["dir"] / "var" / "cache" / "conversions").rglob("*.json"):
        cached.unlink()
    code, out = run(
        "reindex", "-p", "papers", "-m", "fastembed/all-MiniLM-L6-v2-fp32", "-c", project["config"]
    )
    assert code == 1 and "reindex not switched" in out
    assert inspect(project) == before
    assert not (project["dir"] / "var" / "qdrant" / "proj-papers@2").exists()


# ---------------------------------------------------------------- audit and progress
def test_every_document_has_one_audit_event_and_audit_show_summarises(project):
    folder = project["dir"] / "notes"
    notes(folder, 3)
    (folder / "bad.pdf").write_bytes(b"")
    code, out = run("ingest", str(folder), "-p", "papers", "-c", project["config"])
    assert code == 1
    assert "[1/4]" in out and "━" not in out  # plain progress lines when not a terminal
    cid = out.split("correlation id: ")[1].split()[0]
    audit = project["dir"] / "var" / "audit" / f"{cid}.jsonl"
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    documents = [e for e in events if e["event"] == "document"]
    assert sorted(Path(e["path"]).name for e in documents) == [
        "bad.pdf",
        "note00.txt",
        "note01.txt",
        "note02.txt",
    ]
    assert all("durations_s" in e and "warnings" in e for e in documents)
    code, shown = run("audit", "show", cid[:18], "-c", project["config"])
    assert code == 0
    assert f"run {cid}: finished" in shown
    assert "3 ingested" in shown and "1 failed" in shown and "bad.pdf: the file is empty" in shown


def test_progress_json_tells_each_event_on_stderr_and_leaves_stdout_to_the_result(project):
    """``--progress json``: every stderr line is one JSON object (started, a document event
    per file in order with the counts so far, finished), stdout is the --json result."""
    bad = project["dir"] / "bad"
    bad.mkdir()
    (bad / "empty.pdf").write_bytes(b"")
    command = [CITELOOM, "ingest", str(EXAMPLES), str(bad), "-p", "papers",
               "-c", project["config"], "--json", "--progress", "json"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 1, done.stderr  # one document failed
    result = json.loads(done.stdout)
    events = [json.loads(line) for line in done.stderr.splitlines()]  # each line is JSON
    kinds = [e["event"] for e in events if e["event"] != "log"]
    assert kinds == ["started", *["document"] * 4, "finished"], events
    started, *documents, finished = [e for e in events if e["event"] != "log"]
    assert started["total"] == 4 and started["correlation_id"] == result["correlation_id"]
    assert [d["number"] for d in documents] == [1, 2, 3, 4]
    assert {d["path"] for d in documents} == {d["path"] for d in result["documents"]}
    failed = next(d for d in documents if d["status"] == "failed")
    assert failed["path"].endswith("empty.pdf") and "empty" in failed["error"]
    assert documents[-1]["counts"] == {"ingested": 3, "skipped": 0, "failed": 1}
    assert all(d["chunks"] > 0 for d in documents if d["status"] == "ingested")
    assert finished["totals"] == result["totals"]

    again = subprocess.run([*command[:-3], "--progress", "json"], capture_output=True,
                           text=True, timeout=900, check=False)  # fmt: skip
    events = [json.loads(line) for line in again.stderr.splitlines()]
    skipped = [e for e in events if e["event"] == "document" and e["status"] == "skipped"]
    assert len(skipped) == 3  # the unchanged examples
    assert "correlation id" in again.stdout  # text on stdout, JSON on stderr


def test_progress_json_leaves_stdout_as_it_is_and_its_counts_agree_from_start_to_end(project):
    """A script that adds ``--progress json`` keeps every line stdout had (the reasons a
    document was skipped or failed), and the events count the same documents throughout:
    the paths refused before the run included, told as they are recorded (issue 42)."""
    folder = project["dir"] / "inbox"
    notes(folder, 2)  # note00 is stored by a first run: skipped; note01 goes in
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4 not a PDF at all")
    odd = project["dir"] / "odd.xyz"  # named on the command line: tried, unsupported
    odd.write_text("not a document citeloom reads", "utf-8")
    fifo = project["dir"] / "pipe"  # refused before the run
    os.mkfifo(fifo)
    command = [CITELOOM, "ingest", str(folder), str(odd), str(fifo), "-p", "papers",
               "-c", project["config"]]  # fmt: skip

    def second_run(*extra: str) -> subprocess.CompletedProcess[str]:
        shutil.rmtree(project["dir"] / "var", ignore_errors=True)
        first = [*command[:2], str(folder / "note00.txt"), *command[5:]]
        subprocess.run(first, capture_output=True, check=True, cwd=project["dir"])
        return subprocess.run([*command, *extra], capture_output=True, text=True, timeout=300,
                              check=False, cwd=project["dir"])  # fmt: skip

    def masked(text: str) -> str:  # each run has its own correlation id
        return re.sub(r"\d{8}T\d{6}Z-[0-9a-f]{8}", "ID", text)

    plain, with_json = second_run(), second_run("--progress", "json")
    assert plain.returncode == with_json.returncode == 1, with_json.stderr
    assert masked(with_json.stdout) == masked(plain.stdout)
    assert "skipped   inbox/note00.txt" in plain.stdout and "corrupt.pdf: the PDF" in plain.stdout
    events = [json.loads(line) for line in with_json.stderr.splitlines()]
    started = next(e for e in events if e["event"] == "started")
    documents = [e for e in events if e["event"] == "document"]
    finished = next(e for e in events if e["event"] == "finished")
    assert started["total"] == finished["totals"]["documents"] == len(documents) == 5
    assert [d["number"] for d in documents] == [1, 2, 3, 4, 5]
    assert {d["total"] for d in documents} == {5}
    assert documents[0]["path"] == str(fifo) and documents[0]["status"] == "failed"
    last = documents[-1]["counts"]
    assert last == {k: finished["totals"][k] for k in ("ingested", "skipped", "failed")}
    assert last == {"ingested": 1, "skipped": 1, "failed": 3}


def test_a_terminal_gets_a_progress_bar_and_json_gets_none(project):
    import pty

    folder = project["dir"] / "notes"
    notes(folder, 3)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", project["config"]],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "COLUMNS": "160", "TERM": "xterm"},
    )
    os.close(follower)
    screen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        screen += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 0
    text = screen.decode("utf-8", "replace")
    assert "━" in text and "documents" in text and "pages" in text and "chunks" in text
    assert "[1/3]" not in text  # the bar replaces the plain progress lines

    (folder / "new.txt").write_text("A fourth note about tidal creeks.", "utf-8")
    code, out = run("ingest", str(folder), "-p", "papers", "-c", project["config"], "--json")
    assert code == 0 and json.loads(out)["totals"]["ingested"] == 1  # nothing but the JSON


@pytest.mark.shared
def test_a_document_over_the_time_limit_does_not_hold_up_the_batch(tmp_path):
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    config = write_config(tmp_path, refs, extra="\n[conversion]\ntimeout_s = 0.5\n")
    inbox = tmp_path / "inbox"
    notes(inbox, 1)
    (inbox / "long.pdf").symlink_to(PAPERS / "grobid_MullenJSSv18i03.pdf")  # 46 pages
    code, out = run("ingest", str(inbox), "-p", "papers", "-c", str(config), "--json")
    report = json.loads(out)
    outcomes = {Path(d["path"]).name: d for d in report["documents"]}
    assert outcomes["note00.txt"]["status"] == "ingested"
    slow = outcomes["long.pdf"]
    audit = tmp_path / "var" / "audit" / f"{report['correlation_id']}.jsonl"
    (event,) = [
        e
        for e in map(json.loads, audit.read_text().splitlines())
        if e["event"] == "document" and e["path"].endswith("long.pdf")
    ]
    if slow["status"] == "failed":  # stopped before any page was done
        assert code == 1 and "time limit of 0.5 s" in slow["error"] and "timeout_s" in slow["error"]
    else:  # the pages done in time are stored, and the audit says the rest are missing
        assert code == 0 and event["partial"] is True
        assert any("time limit of 0.5 s" in w for w in event["warnings"])
        assert slow["pages"] == 46


def test_verbose_logs_each_document_without_its_text_and_quiet_logs_nothing(project):
    folder = project["dir"] / "notes"
    notes(folder, 2)
    command = [CITELOOM, "ingest", str(folder), "-p", "papers", "-c", project["config"]]
    quiet = subprocess.run(command, capture_output=True, text=True, check=True)
    assert quiet.stderr == ""
    (folder / "note00.txt").write_text("Changed: lagoons store tidal energy.", "utf-8")
    loud = subprocess.run(
        [CITELOOM, "-v", *command[1:]], capture_output=True, text=True, check=True
    )
    logged = loud.stderr.splitlines()
    assert any("document ingested" in line and "note00.txt" in line for line in logged)
    assert any("document skipped" in line and "note01.txt" in line for line in logged)
    assert all("correlation_id=" in line for line in logged if "document " in line)
    assert "lagoons" not in loud.stderr and "Salt marshes" not in loud.stderr  # no text
