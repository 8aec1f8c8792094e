from __future__ import annotations

from typing import Any, Protocol


class AuditLog(Protocol):
    """One append-only record per ingest run, named by its correlation id."""

    @property
    def correlation_id(self) -> str: ...

    @property
    def location(self) -> str: ...

    def record(self, event: str, **fields: Any) -> None: ...

    def close(self) -> None: ...
