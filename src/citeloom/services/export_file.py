"""Writing an export file without ever harming what its path names.

An export replaces its target by renaming a finished file over it, and a rename replaces
whatever the name held: a symbolic link (not the file it points at), a named pipe another
program reads, a device such as /dev/full. So the target must be a regular file or a new
path; anything else is refused before the index is read. The file is written beside the
target under a temporary name and renamed only when complete, so a failed, interrupted or
killed export never leaves a partial file under the target's name.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from citeloom.domain.errors import STORAGE_ERRNOS, CiteloomError, ConfigError, StorageError

_NOT_A_FILE = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_target(path: Path) -> os.stat_result | None:
    """The target's status when it is a regular file, None when it is a new path in an
    existing folder; otherwise a ``ConfigError`` naming what it is and the fix."""
    try:
        status = os.lstat(path)  # lstat: a link is judged itself, never what it points at
    except FileNotFoundError:
        _check_folder(path)
        return None
    except NotADirectoryError:
        raise _bad_folder(path) from None
    except OSError as error:
        raise _unwritable(path, error) from error
    if stat.S_ISREG(status.st_mode):
        return status
    kind = next((name for test, name in _NOT_A_FILE if test(status.st_mode)), "not a file")
    raise ConfigError(
        f"{path} is {kind}: export writes a regular file and would replace it. Nothing was "
        f"written. Name a regular file or a new path{_example(path, kind)}."
    )


def write_atomically(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` to ``path`` through a temporary file in the same folder, renamed over
    the target only once complete; on any failure or interruption the temporary file goes."""
    existing = check_target(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise _unwritable(path, error) from error
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if existing is not None:  # the replaced file's permissions carry over
                os.fchmod(out.fileno(), stat.S_IMODE(existing.st_mode))
            out.writelines(lines)
            out.flush()
            os.fsync(out.fileno())
        check_target(path)  # again: nothing but a regular file may have appeared meanwhile
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise _unwritable(path, error) from error
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _check_folder(path: Path) -> None:
    if not path.parent.is_dir():
        raise _bad_folder(path)


def _bad_folder(path: Path) -> CiteloomError:
    """The target's folder is missing, or a regular file stands where a folder should be."""
    for ancestor in path.parents:
        if ancestor.exists() and not ancestor.is_dir():
            return ConfigError(
                f"{path}: cannot write the export: {ancestor} is a file, not a folder. Name a "
                "path in an existing folder."
            )
    return ConfigError(
        f"{path}: cannot write the export: the folder {path.parent} does not exist. Create "
        "it, or name a file in an existing folder."
    )


def _unwritable(path: Path, error: OSError) -> CiteloomError:
    reason = error.strerror or str(error)
    if error.errno in STORAGE_ERRNOS:
        return StorageError(
            f"{path}: cannot write the export ({reason}). Nothing was written under that name; "
            "free some space or choose another disk, then export again."
        )
    return ConfigError(
        f"{path}: cannot write the export ({reason}). Nothing was written under that name; "
        "choose a folder you can write to."
    )


def _example(path: Path, kind: str) -> str:
    if kind == "a folder":
        return f", e.g. {path / 'export.jsonl'}"
    if kind == "a symbolic link":
        return f" (the link points at {os.readlink(path)})"
    return ""
