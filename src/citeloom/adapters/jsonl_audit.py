"""The ingest audit: one JSONL file per run under ``audit_dir``, named by its correlation id.

Each line is flushed as it is written, so a killed run still leaves every finished document's
event on disk. Document text never goes into the audit, only paths, ids and counts.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from citeloom.domain.errors import STORAGE_ERRNOS, ConfigError, StorageError


def new_correlation_id() -> str:
    """Sortable by time, unique by a random tail: ``20261122T101500Z-3f9a1c2e``."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"


class JsonlAuditLog:
    """The file is created by the first event: a run stopped by a usage error before it
    began (a missing path, an empty folder) leaves no empty audit behind."""

    def __init__(self, audit_dir: Path, correlation_id: str | None = None) -> None:
        self._id = correlation_id or new_correlation_id()
        self._dir = audit_dir
        self._path = audit_dir / f"{self._id}.jsonl"
        self._handle: TextIO | None = None
        self._failed = False
        try:
            audit_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._unwritable(error) from error

    @property
    def correlation_id(self) -> str:
        return self._id

    @property
    def location(self) -> str:
        return str(self._path)

    def record(self, event: str, **fields: Any) -> None:
        if self._failed:  # said once; the run is stopping, the rest could not be written
            return
        line = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "correlation_id": self._id,
            "event": event,
            **fields,
        }
        try:
            if self._handle is None:
                self._handle = self._path.open("a", encoding="utf-8")
            self._handle.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            self._handle.flush()
        except OSError as error:
            self._failed = True
            raise self._unwritable(error) from error

    def _unwritable(self, error: OSError) -> ConfigError | StorageError:
        if error.errno in STORAGE_ERRNOS:
            return StorageError(
                f"{self._dir}: cannot write the audit ({error.strerror}). Free some space or "
                "check the disk, then run the same command again."
            )
        return ConfigError(
            f"{self._dir}: cannot write the audit ({error.strerror}). Fix [paths] audit_dir "
            "or its permissions."
        )

    def close(self) -> None:
        if self._handle is not None and not self._handle.closed:
            self._handle.close()


def read_audit(path: Path) -> list[dict[str, Any]]:
    """Events of a run; a last line cut short by a killed process is left out."""
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def list_audits(audit_dir: Path) -> list[Path]:
    """Audit files, oldest first (correlation ids sort by time)."""
    return sorted(audit_dir.glob("*.jsonl")) if audit_dir.is_dir() else []


def find_audit(audit_dir: Path, correlation_id: str) -> Path:
    exact = audit_dir / f"{correlation_id}.jsonl"
    if exact.is_file():
        return exact
    matches = [p for p in list_audits(audit_dir) if p.stem.startswith(correlation_id)]
    if len(matches) == 1:
        return matches[0]
    what = "several runs" if matches else "no run"
    raise ConfigError(
        f"{audit_dir}: {what} with correlation id '{correlation_id}'. "
        "`citeloom audit list` shows the runs."
    )
