"""A consistent, read-only copy of a SQLite database another program holds open.

Zotero keeps ``zotero.sqlite`` open (and locked) while it runs, and Better BibTeX does the same
with ``better-bibtex.sqlite``. citeloom never opens them in place: it copies the database with
its write-ahead log or rollback journal into a temporary folder, checks that the files did not
change while they were copied, and opens the copy. SQLite then replays the log or rolls back
the journal in the copy, so the reader sees the last committed state, and the original is
never written, locked or waited for.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citeloom.domain.errors import ReferencesError

# the files SQLite keeps beside a database: the write-ahead log, and a rollback journal
_SIDE_FILES = ("-wal", "-journal")
_ATTEMPTS = 5


def _stamp(path: Path) -> tuple[tuple[int, int] | None, ...]:
    """Size and modification time of the database and its side files (None: absent)."""
    out: list[tuple[int, int] | None] = []
    for suffix in ("", *_SIDE_FILES):
        try:
            stat = Path(f"{path}{suffix}").stat()
        except FileNotFoundError:
            out.append(None)
        else:
            out.append((stat.st_size, stat.st_mtime_ns))
    return tuple(out)


@contextmanager
def snapshot(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a private copy of the database at ``path``, deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix="citeloom-zotero-") as folder:
        copy = Path(folder) / path.name
        for _ in range(_ATTEMPTS):
            before = _stamp(path)
            try:
                for suffix in ("", *_SIDE_FILES):
                    source = Path(f"{path}{suffix}")
                    target = Path(f"{copy}{suffix}")
                    target.unlink(missing_ok=True)
                    if source.exists():
                        shutil.copyfile(source, target)
            except FileNotFoundError:
                continue  # a journal went away while it was copied: the next try sees
            except OSError as error:
                raise ReferencesError(
                    f"{path}: cannot be read ({error.strerror or error}). Check that the "
                    "Zotero data directory is readable by you."
                ) from error
            if _stamp(path) == before:
                break
        else:
            raise ReferencesError(
                f"{path}: kept changing while it was read ({_ATTEMPTS} tries). Zotero is "
                "probably syncing; run the command again when it is done."
            )
        try:
            connection = sqlite3.connect(copy)
            connection.row_factory = sqlite3.Row
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as error:
            raise ReferencesError(
                f"{path}: not a readable SQLite database ({error}). Point zotero at Zotero's "
                "data directory (the folder holding zotero.sqlite and storage/)."
            ) from error
        try:
            yield connection
        finally:
            connection.close()
