"""Printing to a terminal: safely, and when the reader may go away (``citeloom ingest F |
head -1``).

Stored text comes from PDFs and from MCP clients: a control character (``\x07``, ``\x1b``) or a
bidi override (U+202E) printed raw would ring, recolour or reorder the terminal, or set its
clipboard (OSC 52). One set of such characters (``UNSAFE``), three treatments:

- printed output escapes them (``terminal_safe``: ``\x1b``, ``\u202e``), so that a reader sees
  something is there; JSON keeps its values exact and writes them as JSON escapes
  (``json_text``);
- a name or path is one field of one line: its line breaks are escaped too (``one_line``), so a
  file named ``a\nfailed  x.pdf`` cannot forge a line of ``ingest``'s output;
- the TUI, whose screen library writes text to the terminal as it is, shows and copies text
  without them (``without_controls``: escape sequences removed whole, ``ESC]52;...BEL`` and
  ``ESC[31m`` included), so that what ``y`` and ``c`` copy is what the screen showed.

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
UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[{UNSAFE}]")
_BREAKS = re.compile(f"[{UNSAFE}\n\t]")
# An escape sequence as a terminal reads it, removed whole: a CSI (ESC [ ... final byte), a
# string command ended by BEL or ST (OSC, DCS, SOS, PM, APC: ESC ] 52 ; c ; ... BEL), or ESC
# and the characters of a short one. An unended string command loses only its introducer:
# its words stay readable, rather than the rest of a passage vanishing.
_SEQUENCE = (
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x1b][\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]"
)
_HIDDEN = re.compile(f"{_SEQUENCE}|[{UNSAFE}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    if match[0] == "\n":
        return "\\n"
    if match[0] == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape."""
    return _UNSAFE.sub(_escaped, text)


def one_line(name: str) -> str:
    """A name or path for one line of output: ``terminal_safe``, and its line breaks and tabs
    escaped too (``\\n``), so that it can never start a line of its own."""
    return _BREAKS.sub(_escaped, name)


def without_controls(text: str) -> str:
    """``text`` as a screen shows it: escape sequences, control characters (but newline and
    tab) and bidi controls removed."""
    return _HIDDEN.sub("", text)


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
