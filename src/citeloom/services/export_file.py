"""The export file on disk: written without ever harming what its path names, and read back
without trusting a byte of it.

Writing. An export replaces its target by renaming a finished file over it, and a rename
replaces whatever the name held: a symbolic link (not the file it points at), a named pipe
another program reads, a device such as /dev/full. So the target must be a regular file or a
new path; anything else is refused before the index is read. The file is written beside the
target under a temporary name and renamed only when complete, so a failed, interrupted or
killed export never leaves a partial file under the target's name.

Reading. Every line is checked before the first point is written, and a refusal names the
line and the field: the engines take a NaN, a vector of the wrong length or BM25 indices
without their values silently or with a panic, and a payload without the keys queries filter
on would import fine and then fail every query that finds it (``domain.record_check``). The
file is read once, front to back, so it may also be a pipe.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import stat
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from citeloom.domain.errors import STORAGE_ERRNOS, CiteloomError, ConfigError, StorageError
from citeloom.domain.file_kinds import kind_of
from citeloom.domain.languages import BM25_LANGUAGES, DEFAULT_LANGUAGES
from citeloom.domain.models import IndexPoint
from citeloom.domain.record_check import record_problem, shown, within_64_bits

FORMAT = "citeloom-export"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # 1: before printed page labels, chunk kinds and note payloads
POINT_KEYS = ("id", "vector", "bm25", "payload", "text")
MAX_DIMENSIONS = 65_536  # the most a Qdrant vector may have
FLOAT32_MAX = 3.4028234663852886e38  # the engines store vectors and BM25 weights as float32
MAX_TERM = 2**32 - 1  # BM25 term ids are unsigned 32-bit
UNIT = 1e-3  # how far from 1 a stored cosine vector's length may be (float32 rounding)


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
    kind = kind_of(status.st_mode)
    if kind is None:
        return status
    raise ConfigError(
        f"{path} is {kind}: export writes a regular file and would replace it. Nothing was "
        f"written. Name a regular file or a new path{_example(path, kind)}."
    )


def refuse_unreadable_import(path: Path) -> None:
    """An export to import may be a regular file or a pipe (``<(zcat export.gz)``); a device
    never ends (/dev/zero: one endless line) and a folder or a socket holds no lines, so such
    a path is refused with a ``ConfigError``, before the index is opened. A path that cannot
    be read at all is left to the reader, which says why."""
    try:
        status = path.stat()  # through links: what would be read
    except OSError:
        return
    kind = kind_of(status.st_mode)
    if kind is None or stat.S_ISFIFO(status.st_mode):
        return
    if path.is_symlink():
        kind = f"a link to {os.path.realpath(path)}, {kind}"
    raise ConfigError(
        f"{path} is {kind}: import reads a file written by citeloom export (or a pipe). "
        "Nothing was imported. Name the export file."
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


# ---------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class ExportHeader:
    embed_model: str
    dimensions: int
    points: int
    tokenizer: str | None
    version: int
    created_by: str
    # what its BM25 vectors were stemmed for; files written before languages: English
    languages: tuple[str, ...] = DEFAULT_LANGUAGES


class _Damaged(Exception):
    """What is wrong with one line; the reader adds the file and the line number."""


T = TypeVar("T")


class ExportReader:
    """An export opened for import: its header checked at once, its points on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._file: BinaryIO = path.open("rb")
        except OSError as error:
            raise ConfigError(f"{path}: cannot be read ({error.strerror}).") from error
        try:
            self.header = _header(path, self._text(1, next(self._file, b"")))
        except BaseException:
            self._file.close()
            raise

    def __enter__(self) -> ExportReader:
        return self

    def __exit__(self, *_: object) -> None:
        self._file.close()

    def points(self) -> list[IndexPoint]:
        """Every point, each line checked, before anything is written: ids unique, as many
        as the header says."""
        points: list[IndexPoint] = []
        lines: dict[str, int] = {}
        for number, raw in enumerate(self._file, start=2):
            text = self._text(number, raw)
            point = self._checked(number, _point, text, self.header.dimensions)
            first = lines.setdefault(point.id, number)
            if first != number:
                raise self._damaged(
                    number,
                    f"id {point.id} is also the id of line {first}: the point would be stored "
                    "once and counted twice",
                )
            points.append(point)
        if len(points) != self.header.points:
            raise ConfigError(
                f"{self.path}: holds {len(points)} points but its header says "
                f"{self.header.points}; the file is incomplete. Export the project again."
            )
        return points

    def _text(self, number: int, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if number == 1:
                raise ConfigError(f"{self.path}: not a citeloom export (not UTF-8 text).") from None
            raise self._damaged(number, f"not UTF-8 text (byte {error.start + 1})") from None

    def _checked(self, number: int, read: Callable[..., T], *args: Any) -> T:
        try:
            return read(*args)
        except _Damaged as error:
            raise self._damaged(number, str(error)) from None

    def _damaged(self, number: int, what: str) -> CiteloomError:
        return damaged(self.path, number, what)


def damaged(path: Path, number: int, what: str) -> CiteloomError:
    return ConfigError(f"{path}: line {number}: {what}. The file is damaged; export it again.")


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _Damaged(f"not JSON ({error.msg} at column {error.colno})") from None
    except (ValueError, RecursionError) as error:
        raise _Damaged(f"not JSON ({error})") from None


def _header(path: Path, text: str) -> ExportHeader:
    try:
        data = _json(text)
    except _Damaged:
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(
            f"{path}: not a citeloom export (its first line is not a '{FORMAT}' header). "
            "Make one with: citeloom export --project P FILE"
        )
    version, created_by = data.get("version"), str(data.get("created_by", "unknown"))
    if not _whole(version) or version not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise ConfigError(
            f"{path}: export format version {shown(version)}, this citeloom reads versions "
            f"{readable}. Import it with the citeloom version that wrote it ({created_by}) "
            "or export it again."
        )
    problem = _header_problem(data)
    if problem:
        raise damaged(path, 1, f"the header's {problem}")
    return ExportHeader(
        data["embed_model"],
        data["dimensions"],
        data["points"],
        data.get("tokenizer"),
        version,
        created_by,
        tuple(data.get("languages") or DEFAULT_LANGUAGES),
    )


def _header_problem(data: dict[str, Any]) -> str | None:
    rules: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
        ("embed_model", lambda v: isinstance(v, str) and v != "", "a model id"),
        (
            "dimensions",
            lambda v: _whole(v) and 1 <= v <= MAX_DIMENSIONS,
            f"a whole number from 1 to {MAX_DIMENSIONS}",
        ),
        ("points", lambda v: _whole(v) and v >= 0, "a whole number, 0 or more"),
    )
    for key, test, wanted in rules:
        if key not in data:
            return f"{key} is missing"
        if not test(data[key]):
            return f"{key} is {shown(data[key])}, not {wanted}"
    tokenizer = data.get("tokenizer")
    if tokenizer is not None and not isinstance(tokenizer, str):
        return f"tokenizer is {shown(tokenizer)}, not a string or null"
    languages = data.get("languages", list(DEFAULT_LANGUAGES))
    if (
        not isinstance(languages, list)
        or not languages
        or not all(isinstance(v, str) and v in BM25_LANGUAGES for v in languages)
    ):
        return f'languages is {shown(languages)}, not a list of BM25 languages such as ["english"]'
    return None


def _point(text: str, dimensions: int) -> IndexPoint:
    data = _json(text)
    if not isinstance(data, dict):
        raise _Damaged(f"is {shown(data)}, not a point (an object with {', '.join(POINT_KEYS)})")
    if missing := [key for key in POINT_KEYS if key not in data]:
        raise _Damaged(f"the point lacks {', '.join(missing)}")
    point_id = _uuid(data["id"])
    vector = _vector(data["vector"], dimensions)
    sparse = _sparse(data["bm25"])
    if problem := record_problem(data["payload"]):
        raise _Damaged(f"payload {problem}")
    if not isinstance(data["text"], str):
        raise _Damaged(f"text is {shown(data['text'])}, not a string")
    return IndexPoint(point_id, vector, data["text"], data["payload"], sparse)


def _uuid(value: Any) -> str:
    """The id as the engines write it back (they accept other spellings of a UUID and
    normalise them: two spellings of one id are one point)."""
    try:
        return str(uuid.UUID(value))
    except (TypeError, ValueError, AttributeError):
        raise _Damaged(f"id is {shown(value)}, not a UUID") from None


def _vector(value: Any, dimensions: int) -> list[float]:
    if not isinstance(value, list):
        raise _Damaged(f"vector is {shown(value)}, not a list of numbers")
    if len(value) != dimensions:
        raise _Damaged(f"vector has {len(value)} numbers, the header says {dimensions} dimensions")
    for i, x in enumerate(value):
        if not _float32(x):
            raise _Damaged(f"vector[{i}] is {shown(x)}, not a finite 32-bit number")
    length = math.sqrt(math.fsum(x * x for x in value))
    if abs(length - 1) > UNIT:
        raise _Damaged(
            f"vector has length {length:.6g}, not 1: the index stores cosine vectors of length 1"
        )
    return [float(x) for x in value]


def _sparse(value: Any) -> tuple[list[int], list[float]]:
    if not isinstance(value, dict):
        raise _Damaged(f"bm25 is {shown(value)}, not an object with indices and values")
    indices, values = _list(value, "indices"), _list(value, "values")
    if len(indices) != len(values):
        raise _Damaged(f"bm25 has {len(indices)} indices but {len(values)} values")
    for i, term in enumerate(indices):
        if not (_whole(term) and 0 <= term <= MAX_TERM):
            raise _Damaged(
                f"bm25.indices[{i}] is {shown(term)}, not a whole number from 0 to {MAX_TERM}"
            )
    if len(set(indices)) != len(indices):
        raise _Damaged("bm25.indices holds a term twice")
    for i, weight in enumerate(values):
        if not (_float32(weight) and weight > 0):
            raise _Damaged(f"bm25.values[{i}] is {shown(weight)}, not a positive 32-bit number")
    return list(indices), [float(v) for v in values]


def _list(value: dict[str, Any], key: str) -> list[Any]:
    given = value.get(key)
    if not isinstance(given, list):
        raise _Damaged(f"bm25.{key} is {shown(given)}, not a list")
    return given


def _float32(x: Any) -> bool:
    """A number a float32 holds (a JSON integer may be too large even to be a float). A JSON
    integer beyond 64 bits is refused as in a payload (``record_check``): no export writes
    one, and 2**70 as a BM25 weight passed once for a float32 (1.2e21)."""
    if _whole(x):
        return within_64_bits(x)
    return isinstance(x, float) and math.isfinite(x) and abs(x) <= FLOAT32_MAX


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
