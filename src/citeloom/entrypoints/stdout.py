"""Printing to a terminal: safely, and when the reader may go away (``citeloom ingest F |
head -1``).

Stored text comes from PDFs and from MCP clients: a control character (``\x07``, ``\x1b``) or a
bidi override (U+202E) printed raw would ring, recolour or reorder the terminal. Everything
printed is escaped (``terminal_safe``); JSON keeps its values exact and writes those
characters as JSON escapes (``json_text``).

A closed pipe must not stop or misreport the work. The first write that finds the reader gone
points stdout at /dev/null, so the run goes on quietly, its audit is complete, and the exit
code is the one the work earned. Messages for the person at the terminal go to stderr and
are not affected.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import typer

# C0/C1 controls but newline and tab, and the bidi embeddings, overrides, isolates and marks
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape."""
    return _UNSAFE.sub(_escaped, text)


def json_text(data: Any) -> str:
    """JSON for people and scripts: UTF-8 as is, but the characters ``terminal_safe``
    escapes written as JSON escapes (``\\u202e``), which read back to the same string."""
    return _UNSAFE.sub(
        lambda m: f"\\u{ord(m[0]):04x}", json.dumps(data, ensure_ascii=False, indent=2)
    )


def echo(text: str) -> None:
    """``typer.echo`` to stdout, escaped for a terminal, silent once the reader has gone."""
    try:
        typer.echo(terminal_safe(text))
    except BrokenPipeError:
        _discard_stdout()


def echo_err(text: str) -> None:
    """A message for the person at the terminal, on stderr, escaped."""
    typer.echo(terminal_safe(text), err=True)


def _discard_stdout() -> None:
    # What is still buffered goes to /dev/null too, so the interpreter's last flush at exit
    # does not report the broken pipe either.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
