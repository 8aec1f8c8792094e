"""Which changes concern a watched project, and what a run that cannot be made does."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from citeloom.domain.errors import IndexBusy
from citeloom.services.watch import WatchEvent, WatchService, WatchSources


def _pdf(path: Path) -> bool:
    return path.suffix == ".pdf"


def test_changes_of_the_sources_are_accepted_and_others_ignored(tmp_path):
    zotero = tmp_path / "Zotero"
    (tmp_path / "papers" / "copied in").mkdir(parents=True)
    zotero.mkdir()
    sources = WatchSources(
        folders=[tmp_path / "papers"],
        references=tmp_path / "library.json",
        library_root=zotero,
        library_files=[zotero / "zotero.sqlite", zotero / "zotero.sqlite-wal"],
    )
    accepted = [
        tmp_path / "papers" / "a.pdf",
        tmp_path / "papers" / "sub" / "b.pdf",
        tmp_path / "papers" / "copied in",  # a new folder: its files may raise no event
        tmp_path / "library.json",
        zotero / "zotero.sqlite-wal",
        zotero / "storage" / "ABCD2345" / "x.pdf",
    ]
    ignored = [
        tmp_path / "papers" / "notes.xyz",
        tmp_path / "papers" / ".~lock.a.pdf",
        tmp_path / "var" / "audit" / "run.jsonl",
        tmp_path / "other.json",
        zotero / "cache" / "thumb.png",
        zotero / "zotero.sqlite.bak",
    ]
    assert all(sources.accept(p, _pdf) for p in accepted)
    assert not any(sources.accept(p, _pdf) for p in ignored)
    assert set(sources.roots()) == {tmp_path / "papers", tmp_path, zotero}


class _Batches:
    def __init__(self, batches: list[set[Path]]) -> None:
        self.batches = batches

    def changes(
        self, roots: Sequence[Path], accept: Callable[[Path], bool], should_stop: Callable[[], bool]
    ) -> Iterator[set[Path]]:
        yield from self.batches


def test_a_run_that_cannot_be_made_is_reported_and_the_watch_goes_on(tmp_path):
    calls = []

    def run_once(sources, should_stop):
        calls.append(1)
        raise IndexBusy("the index is held by another citeloom process")

    events: list[WatchEvent] = []
    service = WatchService(
        project="p",
        sources=WatchSources(folders=[tmp_path]),
        run_once=run_once,
        watcher=_Batches([set(), {tmp_path / "a.pdf"}]),
        supports=_pdf,
    )
    assert service.run(events.append) == 0
    assert len(calls) == 2  # the catch-up run, then the change
    kinds = [e.event for e in events]
    assert kinds == ["watching", "error", "changes", "error", "stopped"]
    assert "held by another" in events[1].data["error"]
