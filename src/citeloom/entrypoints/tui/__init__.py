"""``citeloom tui``: ask, read and cite in the terminal.

A Textual app in the same process as the warm runtime (``entrypoints.runtime.Runtime``), the
one behind ``citeloom serve`` and ``citeloom mcp``: the model loads once, the index stays open
between questions and is handed to an ingest in another terminal as soon as it waits for it.
Every question, passage and project summary is a call of the same services the CLI and MCP
use, made in a worker thread so the screen never freezes.

Nothing here imports Textual but ``app`` and ``screens``, which only ``citeloom tui`` loads.
"""
