"""The load average beside every figure a benchmark prints: one rule for all of them.

Timings on a shared machine are only comparable at a known load (the brief: the load average
printed beside each figure). Rather than each script formatting it into its own lines, a script
calls ``stamp_figures()`` once at start and every line it prints that holds a figure (a digit)
ends with the load average at the moment it was printed. JSON lines (what a measured child
process hands its parent) are left as they are, so parents still parse them.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as printed beside a figure."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def stamped(line: str) -> str:
    """``line`` with the load average appended when it holds a figure (not JSON)."""
    if not any(c.isdigit() for c in line) or line.lstrip().startswith(("{", "[")):
        return line
    return f"{line}  [{load_average()}]"


class _Stamping:
    """A stdout that stamps each complete line as it is written."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self.inner.write(stamped(line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.inner.write(stamped(self._pending))
            self._pending = ""
        self.inner.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def stamp_figures() -> None:
    """From now on, each printed line with a figure carries the load average."""
    if not isinstance(sys.stdout, _Stamping):
        sys.stdout = _Stamping(sys.stdout)  # type: ignore[assignment]
