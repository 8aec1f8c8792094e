"""The ``citeloom`` command line, a module per command group: ``init`` (a first config),
``library`` (ingest, watch),
``search`` (query, answer, check), ``collections`` (validate, inspect, reindex, export,
import, drop, rename-project), ``servers`` (serve, mcp, tui), ``audit`` and ``notes``. Each
command parses its options, calls one use case of ``services.application`` and renders what
it returns.

Exit codes (also in the README):
  0  success
  1  some documents failed (the others went in)
  2  usage or configuration error
  3  index unavailable (server down, or the embedded index is busy)
  4  the write guard refused: another embedding model, other languages, another project's
     collection
  5  a disk is full or failing (the run stopped before the document in hand was stored)
     (check: 1 when a citation has a verdict of --fail-on)
 70  internal error (a bug: run with -v and report it)
130  interrupted (Ctrl-C; watch ends with 0 on Ctrl-C or SIGTERM, 130 on a second one)

Heavy modules are imported inside the commands that need them: ``--help`` and ``query`` never
import Docling or torch.
"""

from __future__ import annotations

import sys

from citeloom.domain.errors import ExitCode
from citeloom.entrypoints.cli import audit, collections, init, library, notes, search, servers
from citeloom.entrypoints.cli.base import app

__all__ = ["app", "main"]
_GROUPS = (init, library, search, collections, servers, audit, notes)  # each registers its commands


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - outside a command
        sys.exit(int(ExitCode.INTERRUPTED))
