"""``citeloom watch`` on real file events: a folder, the references file and a Zotero data
directory change under it, and the index ends as a fresh ``ingest --prune`` would leave it.

The watch runs as the user runs it (a process of its own, ``--json`` lines read as they come);
each step waits for the run that took in its change. Waits have generous limits and nothing
is timed."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CITELOOM, DATA, EXAMPLES, PAPERS, ROOT
from tests.zotero_fixture import build_zotero

pytestmark = pytest.mark.real

WAIT_S = 240  # an upper bound for one run on a loaded machine, never a measurement


class Watch:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip():
                self.events.put(json.loads(line))

    def next_run(self, wanted: Callable[[dict[str, Any]], bool] = lambda e: True) -> dict:
        """The next run event that ``wanted`` accepts (a run that took in the change)."""
        while True:
            try:
                event = self.events.get(timeout=WAIT_S)
            except queue.Empty:
                raise AssertionError(f"no run came; events so far: {self.seen}") from None
            self.seen.append(event)
            assert event["event"] != "error", event
            if event["event"] == "run" and wanted(event):
                return event


@contextmanager
def watching(
    config: Path, project: str, *paths: Path, options: tuple[str, ...] = ()
) -> Iterator[Watch]:
    process = subprocess.Popen(
        [
            CITELOOM,
            "watch",
            *map(str, paths),
            "-p",
            project,
            "--config",
            str(config),
            "--json",
            "--settle",
            "0.3",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watch = Watch(process)
    try:
        yield watch
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=WAIT_S)
        finally:
            if process.poll() is None:
                process.kill()


def citeloom(*args: str) -> dict:
    done = subprocess.run([CITELOOM, *args, "--json"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def changed(name: str) -> Callable[[dict], bool]:
    return lambda event: any(Path(p).name == name for p in event["changed"])


def write_config(folder: Path, cache: Path, library: str) -> Path:
    config = folder / "citeloom.toml"
    config.write_text(
        f"""
[paths]
audit_dir = "var/audit"
index_dir = "var/qdrant"
cache_dir = "{cache}"

[project."papers"]
collection = "papers"
prune = true
{library}
""",
        encoding="utf-8",
    )
    return config


@pytest.mark.shared
def test_watch_keeps_a_folder_and_its_references_in_step(tmp_path, cache_dir):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copyfile(PAPERS / "grobid_submission_363.pdf", inbox / "a.pdf")
    shutil.copyfile(PAPERS / "grobid_ZFN-A-054-0304-0272.pdf", inbox / "hong.pdf")
    references = tmp_path / "library.json"
    shutil.copyfile(DATA / "papers.csl.json", references)
    config = write_config(tmp_path, cache_dir, f'references_json = "{references}"')

    with watching(config, "papers", inbox) as watch:
        first = watch.next_run()
        assert first["totals"]["ingested"] == 2 and first["changed"] == []

        shutil.copyfile(PAPERS / "grobid_two_pages.pdf", inbox / "new.pdf")  # add
        assert watch.next_run(changed("new.pdf"))["totals"]["ingested"] == 1

        (inbox / "a.pdf").write_bytes((PAPERS / "grobid_submission_161.pdf").read_bytes())  # edit
        assert watch.next_run(changed("a.pdf"))["totals"]["ingested"] == 1

        (inbox / "hong.pdf").rename(inbox / "renamed.pdf")  # rename: nothing converted again
        run = watch.next_run(changed("renamed.pdf"))
        assert run["totals"]["ingested"] == 0 and run["pruned"] == []

        (inbox / "new.pdf").unlink()  # delete: pruned (the project says prune = true)
        run = watch.next_run(changed("new.pdf"))
        assert [Path(p).name for p in run["pruned"]] == ["new.pdf"]

        # Better BibTeX rewrites the references file: the stored document is labelled again
        entries = json.loads(references.read_text())
        for entry in entries:
            if entry["id"] == "hong1999exact":
                entry["id"] = entry["citation-key"] = "hong1999solitary"
        references.write_text(json.dumps(entries))
        assert watch.next_run(changed("library.json"))["relabelled"] >= 1

        # a burst of 50 changes: 40 notes written, 10 of them removed again
        notes = inbox / "notes"
        notes.mkdir()
        for number in range(40):
            (notes / f"n{number}.txt").write_text(
                f"Field note {number}: the marsh transect {number} was sampled at dawn.\n"
            )
        for number in range(30, 40):
            (notes / f"n{number}.txt").unlink()
        runs = 0
        while True:
            runs += 1
            run = watch.next_run()
            if run["totals"]["documents"] == 2 + 30:
                break
        assert runs < 50  # grouped, not one run per change
        assert len({e["correlation_id"] for e in watch.seen if e["event"] == "run"}) == len(
            [e for e in watch.seen if e["event"] == "run"]
        )  # every run has its own audit

        watch.process.send_signal(signal.SIGINT)
        assert watch.process.wait(timeout=WAIT_S) == 0

    fresh = citeloom("ingest", str(inbox), "-p", "papers", "--config", str(config), "--prune")
    assert fresh["totals"]["ingested"] == 0 and fresh["totals"]["failed"] == 0
    assert fresh["pruned"] == [] and fresh["relabelled"] == []
    stored = citeloom("inspect", "-p", "papers", "--config", str(config))
    paths = {Path(d["path"]).name for d in stored["documents"]}
    assert paths == {"a.pdf", "renamed.pdf", *(f"n{n}.txt" for n in range(30))}
    hong = next(d for d in stored["documents"] if d["path"].endswith("renamed.pdf"))
    assert hong["citekey"] == "hong1999solitary"


@pytest.mark.shared
def test_watch_follows_a_zotero_library(tmp_path, cache_dir):
    zotero = build_zotero(tmp_path)
    config = write_config(tmp_path, cache_dir, f'zotero = "{zotero.data_dir}"')
    with watching(config, "papers") as watch:
        first = watch.next_run()
        assert first["totals"]["ingested"] == 4
        assert first["annotations"] == {"stored": 2, "removed": 0, "total": 2}

        with zotero.connect() as db:  # Zotero: a new highlight, and a PDF removed from an item
            db.execute(
                "INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                "VALUES (100, 1, 1, 'ANNOT003')"
            )
            db.execute(
                "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, "
                "pageLabel, sortIndex, position, isExternal) VALUES (100, ?, 1, "
                "'an exact solution', '', '#ffd400', '272', '00001|000100|00200', '{}', 0)",
                (zotero.item_ids["PDFHONG1"],),
            )
            db.execute("DELETE FROM itemAttachments WHERE path = 'storage:draft.pdf'")
        run = watch.next_run(changed("zotero.sqlite"))
        assert [Path(p).name for p in run["pruned"]] == ["draft.pdf"]
        assert run["annotations"]["stored"] == 1 and run["totals"]["ingested"] == 0


def audit_events(folder: Path) -> list[list[dict]]:
    return [
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for path in sorted((folder / "var" / "audit").glob("*.jsonl"))
    ]


@pytest.mark.shared
def test_sigterm_ends_watch_as_ctrl_c_does(tmp_path, cache_dir):
    """A service manager (or kill) stops watch with SIGTERM: the document in hand is stored,
    the run's audit ends with its end record, the stopped event is said (JSON and text),
    and the exit code is watch's own on Ctrl-C (0). Before, SIGTERM killed it: exit 143, no
    stopped event, an audit without an end."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    names = ["grobid_submission_363.pdf", "grobid_ZFN-A-054-0304-0272.pdf",
             "grobid_two_pages.pdf", "grobid_submission_161.pdf"]  # fmt: skip
    for name in names:
        shutil.copyfile(PAPERS / name, inbox / name)
    config = write_config(tmp_path, cache_dir, 'references_json = "refs.json"')
    (tmp_path / "refs.json").write_text("[]", encoding="utf-8")

    with watching(config, "papers", inbox) as watch:
        deadline = time.monotonic() + WAIT_S
        while not any(e.get("event") == "document" for run in audit_events(tmp_path) for e in run):
            assert time.monotonic() < deadline and watch.process.poll() is None
            time.sleep(0.2)
        watch.process.send_signal(signal.SIGTERM)  # mid-run: a document is in hand
        assert watch.process.wait(timeout=WAIT_S) == 0
        run = watch.next_run()
        events = [e["event"] for e in watch.seen]
        while not watch.events.empty():
            events.append(watch.events.get()["event"])
        assert events[-1] == "stopped"
        assert run["totals"]["documents"] + run["interrupted"] == len(names)
        stderr = watch.process.stderr.read() if watch.process.stderr else ""
        assert "stopping after the current document" in stderr and "Traceback" not in stderr
    (audit,) = audit_events(tmp_path)
    assert audit[-1]["event"] == "run_finished"
    documents = [e for e in audit if e.get("event") == "document"]
    assert sorted(Path(e["path"]).name for e in documents) == sorted(names)  # each said once
    if run["interrupted"]:
        assert "run_interrupted" in {e["event"] for e in audit}

    # idle between runs, in text: the next watch takes in what was left, then stops the same way
    process = subprocess.Popen(
        [CITELOOM, "watch", str(inbox), "-p", "papers", "--config", str(config), "--settle",
         "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        lines = []
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith("run "):
                break
        assert "0 failed" in lines[-1], lines
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=WAIT_S) == 0
        assert process.stderr.read().splitlines()[-1] == "stopped after 1 run"
    finally:
        if process.poll() is None:
            process.kill()
    assert all(run[-1]["event"] == "run_finished" for run in audit_events(tmp_path))
    stored = citeloom("inspect", "-p", "papers", "--config", str(config))
    assert len(stored["documents"]) == len(names)


def test_watch_tells_each_runs_progress_as_json_on_stderr(tmp_path, cache_dir):
    """``watch --json --progress json``: stdout holds watch's events, stderr one JSON object
    per line for each run's start, documents and end."""
    inbox = tmp_path / "inbox"
    shutil.copytree(EXAMPLES, inbox)
    references = ROOT / "references" / "example.json"
    config = write_config(tmp_path, cache_dir, f'references_json = "{references}"')
    with watching(config, "papers", inbox, options=("--progress", "json")) as watch:
        run = watch.next_run()
        assert run["totals"]["ingested"] == 3
        watch.process.send_signal(signal.SIGINT)
        assert watch.process.wait(timeout=WAIT_S) == 0
        stderr = watch.process.stderr.read() if watch.process.stderr else ""
    events = [json.loads(line) for line in stderr.splitlines()]  # every line is JSON
    told = [e for e in events if e["event"] in ("started", "document", "finished")]
    assert [e["event"] for e in told] == ["started", "document", "document", "document",
                                          "finished"]  # fmt: skip
    assert told[0]["total"] == 3 and told[0]["correlation_id"] == run["correlation_id"]
    assert {Path(e["path"]).name for e in told[1:4]} == {p.name for p in EXAMPLES.iterdir()}
    assert told[-1]["totals"] == run["totals"]
