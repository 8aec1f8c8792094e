"""Random sequences of add, edit, rename, move, copy and delete over a small folder, each
followed by an ingest (some with --prune), checked after every step against what the index
must hold.

Real parts throughout: the shared papers converted by Docling (once each, then from the
conversion cache), the real chunker, the real embedder and the real Qdrant Edge shard. The
service runs in this process on one index, closed and opened again every few steps as a new
process would.

``CITELOOM_PROPERTY_STEPS`` sets the number of steps (default 200), ``CITELOOM_PROPERTY_SEED``
the seed (fixed by default, so a failure is reproducible; the message names the step).
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from citeloom.domain.ids import sha256_of_file
from tests.conftest import PAPERS, write_config

pytestmark = [pytest.mark.real, pytest.mark.shared]

STEPS = int(os.environ.get("CITELOOM_PROPERTY_STEPS", "200"))
SEED = int(os.environ.get("CITELOOM_PROPERTY_SEED", "20261123"))
# small papers with a text layer: converted in seconds, a few chunks each
PDFS = ("grobid_submission_363.pdf", "grobid_two_pages.pdf", "grobid_1001._0908.0054.pdf")
FOLDERS = ("", "sub", "sub/deeper", "other")
COLLECTION = "proj-papers"
REOPEN_EVERY = 20  # steps between closing and opening the shard again, as a new process would
WORDS = ("marsh", "sediment", "carbon", "tide", "lagoon", "core", "peat", "creek", "flux")


@dataclass
class Folder:
    """The folder the runs ingest, and what the test did to it."""

    root: Path
    rng: random.Random
    counter: int = 0
    log: list[str] = field(default_factory=list)

    def files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file())

    def contents(self) -> dict[Path, str]:
        return {p: sha256_of_file(p) for p in self.files()}

    def _new_path(self, suffix: str) -> Path:
        self.counter += 1
        folder = self.root / self.rng.choice(FOLDERS)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"f{self.counter:03d}{suffix}"

    def _text(self) -> str:
        words = self.rng.choices(WORDS, k=self.rng.choice((12, 40, 260)))  # 1 to 2 chunks
        return f"Note {self.rng.randrange(10**6)}: " + " ".join(words) + "."

    def _write_text(self, path: Path) -> None:
        present = [p for p in self.files() if p.suffix == ".txt" and p != path]
        if present and self.rng.random() < 0.2:  # the content of another file
            shutil.copyfile(self.rng.choice(present), path)
        else:
            path.write_text(self._text(), "utf-8")

    def add(self) -> None:
        if self.rng.random() < 0.3:
            path = self._new_path(".pdf")
            shutil.copyfile(PAPERS / self.rng.choice(PDFS), path)
        else:
            path = self._new_path(".txt")
            self._write_text(path)
        self.log.append(f"add {path.relative_to(self.root)}")

    def edit(self, path: Path) -> None:
        if path.suffix == ".pdf":  # another paper's bytes: perhaps one already in the folder
            shutil.copyfile(PAPERS / self.rng.choice(PDFS), path)
        else:
            self._write_text(path)
        self.log.append(f"edit {path.relative_to(self.root)}")

    def rename(self, path: Path) -> None:
        self.counter += 1
        target = path.with_name(f"r{self.counter:03d}{path.suffix}")
        path.rename(target)
        self.log.append(f"rename {path.relative_to(self.root)} -> {target.name}")

    def move(self, path: Path) -> None:
        folder = self.root / self.rng.choice(FOLDERS)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        if target.exists():
            return self.rename(path)
        path.rename(target)
        self.log.append(f"move {path.relative_to(self.root)} -> {target.relative_to(self.root)}")
        return None

    def copy(self, path: Path) -> None:
        target = self._new_path(path.suffix)
        shutil.copyfile(path, target)
        self.log.append(f"copy {path.relative_to(self.root)} -> {target.relative_to(self.root)}")

    def delete(self, path: Path) -> None:
        path.unlink()
        self.log.append(f"delete {path.relative_to(self.root)}")

    def mutate(self) -> None:
        files = self.files()
        action = self.rng.choices(
            ("add", "edit", "rename", "move", "copy", "delete"), weights=(3, 3, 2, 2, 2, 3)
        )[0]
        if action == "add" or not files or (action == "delete" and len(files) == 1):
            self.add()
        else:
            getattr(self, action)(self.rng.choice(files))


def stored_chunks(index) -> list[dict]:
    """Every chunk's payload as the engine returns it (an exact search with a limit above
    the number of points), not citeloom's summary of them."""
    from citeloom.ports import SearchFilter

    everything = SearchFilter(project="papers")
    limit = index.count(COLLECTION, everything) + 1
    probe = [1.0] + [0.0] * 383
    return [p.payload for p in index.dense_search(COLLECTION, probe, everything, limit)]


def check(
    chunks: list[dict],
    contents: dict[Path, str],
    pruned: bool,
    kept: dict[str, str],
) -> None:
    """What the index must hold after a run over the folder.

    ``kept``: content -> stored path of documents whose files were deleted before this run
    without --prune and whose path no file took over: they stay until a prune."""
    docs: dict[str, list[dict]] = {}
    for chunk in chunks:
        docs.setdefault(chunk["source"]["sha256"], []).append(chunk)
    holders: dict[str, set[str]] = {}
    for path, sha in contents.items():
        holders.setdefault(sha, set()).add(str(path))
    for sha, doc_chunks in docs.items():
        paths = {c["source"]["path"] for c in doc_chunks}
        assert len(paths) == 1, f"one document under several paths: {paths}"
        (path,) = paths
        # one complete copy: every chunk once, as many as the document has
        assert sorted(c["chunk_index"] for c in doc_chunks) == list(
            range(doc_chunks[0]["chunk_total"])
        ), f"{path}: not exactly one complete copy"
        if sha in holders:  # paths up to date
            assert path in holders[sha], f"{path} is stored for content now at {holders[sha]}"
        else:
            assert not pruned, f"{path}: its content is gone, yet it survived --prune"
            assert not Path(path).exists(), f"{path} now holds other content"
    missing = {sha: sorted(paths) for sha, paths in holders.items() if sha not in docs}
    assert not missing, f"present files whose content is not stored: {missing}"
    lost = {path for sha, path in kept.items() if sha not in docs}
    assert not lost, f"deleted without --prune, yet removed: {lost}"


def test_random_changes_leave_exactly_what_the_folder_holds(tmp_path):
    from citeloom import bootstrap
    from citeloom.config import load_settings

    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    settings = load_settings(write_config(tmp_path, refs))
    index = bootstrap.index(settings)
    base = bootstrap.ingest_service(settings, "papers", index)

    folder = Folder(tmp_path / "library", random.Random(SEED))
    folder.root.mkdir()
    for _ in range(4):
        folder.add()
    stored: dict[str, str] = {}  # content -> path, as the last run left the index
    try:
        for step in range(STEPS):
            for _ in range(folder.rng.choice((0, 1, 1, 1, 2, 3)) if step else 0):
                folder.mutate()
            prune = folder.rng.random() < 0.3
            contents = folder.contents()
            present = set(contents.values())
            kept = (
                {}
                if prune
                else {
                    sha: path
                    for sha, path in stored.items()
                    if sha not in present and not Path(path).exists()
                }
            )
            if step % REOPEN_EVERY == 0:
                index.close()
                index = bootstrap.index(settings)
            service = replace(base, index=index, audit=bootstrap.audit_log(settings))
            report = service.run([folder.root], prune=prune)
            where = f"step {step} (seed {SEED}) after: {'; '.join(folder.log[-3:])}"
            assert report.totals["failed"] == 0, where
            assert len(report.documents) == len(contents), where
            if present <= set(stored):  # renames, moves, copies and deletions embed nothing
                assert report.totals["ingested"] == 0, where
            chunks = stored_chunks(index)
            try:
                check(chunks, contents, prune, kept)
            except AssertionError as error:
                raise AssertionError(f"{where}: {error}") from None
            stored = {c["source"]["sha256"]: c["source"]["path"] for c in chunks}
    finally:
        index.close()
