"""Faults beyond kill -9: a disk that fills up during an ingest, and an I/O error from the
conversion cache. Each stops the run with one clear message (exit 5) and leaves the index as it
was before the document in hand; the next run carries on (real Docling, FastEmbed, Qdrant Edge).
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from citeloom.domain.errors import StorageError
from tests.conftest import CITELOOM, write_config

pytestmark = pytest.mark.real

NOTES = ("n0.txt", "n1.txt", "n2.txt")


def notes(folder: Path) -> list[Path]:
    folder.mkdir()
    paths = []
    for i, name in enumerate(NOTES):
        path = folder / name
        words = " ".join(f"observation {k} of note {i} on marsh sediment" for k in range(60))
        path.write_text(f"Note {i}. {words}", "utf-8")
        paths.append(path)
    return paths


def sh(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A small file system of its own and its type: a loop-mounted ext4 image without blocks
    reserved for root (it fills up as a real disk does), else a tmpfs."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    image = tmp_path / "disk.img"
    with image.open("wb") as handle:
        handle.truncate(96 * 2**20)
    made = sh("mkfs.ext4", "-q", "-m", "0", "-F", str(image))
    mounted = made.returncode == 0 and sh("mount", "-o", "loop", str(image), str(mount))
    kind = "ext4"
    if not mounted or mounted.returncode != 0:
        # an opened shard on tmpfs takes about 150 MB (its memory maps are filled in)
        fallback = sh("mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mount))
        if fallback.returncode != 0:
            pytest.skip(f"cannot mount a small file system here: {fallback.stderr.strip()}")
        kind = "tmpfs"
    try:
        yield mount, kind
    finally:
        sh("umount", str(mount))


def fill(disk: Path) -> Path:
    """Write until the disk is full, as another program might."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as handle:
        for size in (2**20, 4096, 512):  # down to the last few blocks
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC
    return filler


class OnConverting:
    """The project's converter, with something happening as it starts on one file (on the
    thread that converts ahead: while the file before it is embedded and written)."""

    def __init__(self, inner, name: str, action: Callable[[], None]) -> None:
        self.inner, self.name, self.action = inner, name, action
        self.converter_id = inner.converter_id

    def supports(self, path: Path) -> bool:
        return self.inner.supports(path)

    def convert(self, path: Path, sha256: str):
        if path.name == self.name:
            self.action()
        return self.inner.convert(path, sha256)


class OnChunking:
    """The project's chunker, with something happening as it starts on one file (once the
    file before it is stored)."""

    def __init__(self, inner, name: str, action: Callable[[], None]) -> None:
        self.inner, self.name, self.action = inner, name, action

    def chunk(self, document, doc_id: str):
        if Path(document.source_path).name == self.name:
            self.action()
        return self.inner.chunk(document, doc_id)


def stored(index_dir: Path) -> dict[str, int]:
    """File name -> chunks, read from the shard itself."""
    from qdrant_edge import EdgeShard, ScrollRequest

    shard = EdgeShard.load(str(index_dir / "proj-papers" / "shard"))
    try:
        records, _ = shard.scroll(ScrollRequest(limit=10_000))
    finally:
        shard.close()
    chunks: dict[str, int] = {}
    for record in records:
        name = Path(record.payload["source"]["path"]).name
        chunks[name] = chunks.get(name, 0) + 1
        assert record.payload["chunk_total"] >= chunks[name]
    return chunks


def run_failing_at_n1(
    config: Path, folder: Path, action: Callable[[], None], stage: str
) -> StorageError:
    """Ingest the folder in this process; ``action`` happens as n1.txt is converted or
    chunked (``stage``)."""
    from citeloom import bootstrap
    from citeloom.config import load_settings

    settings = load_settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.ingest_service(settings, "papers", index)
        if stage == "convert":
            service = replace(service, converter=OnConverting(service.converter, "n1.txt", action))
        else:
            service = replace(service, chunker=OnChunking(service.chunker, "n1.txt", action))
        with pytest.raises(StorageError) as caught:
            service.run([folder])
    finally:
        index.close()
    audit = Path(service.audit.location)
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    statuses = {Path(e["path"]).name: e["status"] for e in events if e["event"] == "document"}
    assert statuses == {"n0.txt": "ingested", "n1.txt": "aborted", "n2.txt": "aborted"}
    assert events[-2]["event"] == "run_aborted" and events[-2]["exit_code"] == 5
    return caught.value


def ingest_cli(config: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    return sh(CITELOOM, "ingest", str(folder), "-p", "papers", "-c", str(config), "--json")


def test_a_disk_that_fills_up_during_an_ingest_stops_it_and_keeps_the_index(tmp_path, small_disk):
    disk, kind = small_disk
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    index_dir = disk / "qdrant"
    config = write_config(tmp_path, refs)
    config.write_text(config.read_text().replace('"var/qdrant"', f'"{index_dir}"'))
    folder = tmp_path / "notes"
    notes(folder)
    filled: list[Path] = []

    # the disk fills up once n0.txt is stored (n1.txt is converted while n0.txt is written)
    error = run_failing_at_n1(config, folder, lambda: filled.append(fill(disk)), "chunk")
    assert str(error).startswith(f"{index_dir}: the disk is (nearly) full")
    assert "Free some space" in str(error) and "[paths] index_dir" in str(error)

    if kind == "ext4":  # tmpfs: opening a shard on a full tmpfs dies of SIGBUS in Qdrant Edge
        again = ingest_cli(config, folder)  # still full: the same clear stop, no traceback
        assert again.returncode == 5, again.stderr
        assert again.stderr.startswith("error: ") and "full" in again.stderr
        assert "Traceback" not in again.stderr

    filled[0].unlink()
    assert set(stored(index_dir)) == {"n0.txt"}  # as it was before n1.txt
    done = ingest_cli(config, folder)
    assert done.returncode == 0, done.stderr
    statuses = {Path(d["path"]).name: d["status"] for d in json.loads(done.stdout)["documents"]}
    assert statuses == {"n0.txt": "skipped", "n1.txt": "ingested", "n2.txt": "ingested"}
    assert set(stored(index_dir)) == set(NOTES)


def test_an_io_error_from_the_conversion_cache_stops_the_run_and_keeps_the_index(
    tmp_path, monkeypatch
):
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    config = write_config(tmp_path, refs)
    folder = tmp_path / "notes"
    notes(folder)
    cache = str(tmp_path / "var" / "cache" / "conversions")
    broken: list[bool] = []

    # A failing disk under the cache: EIO from every stat and open there. A real file system
    # cannot be made to return EIO on demand here, so the calls the cache makes are wrapped.
    def failing(call):
        def wrapped(path, *args, **kwargs):
            if broken and str(path).startswith(cache):
                raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))
            return call(path, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(os, "stat", failing(os.stat))
    monkeypatch.setattr(io, "open", failing(io.open))

    error = run_failing_at_n1(config, folder, lambda: broken.append(True), "convert")
    assert str(error).startswith(f"{cache}/")
    assert "Input/output error (while storing" in str(error) and "n1.txt" in str(error)
    assert "the index is as it was before it" in str(error)

    monkeypatch.undo()
    index_dir = tmp_path / "var" / "qdrant"
    assert set(stored(index_dir)) == {"n0.txt"}
    done = ingest_cli(config, folder)
    assert done.returncode == 0, done.stderr
    assert set(stored(index_dir)) == set(NOTES)
