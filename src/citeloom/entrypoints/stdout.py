"""Printing to stdout when the reader may go away (``citeloom ingest F | head -1``).

A closed pipe must not stop or misreport the work. The first write that finds the reader gone
points stdout at /dev/null, so the run goes on quietly, its audit is complete, and the exit
code is the one the work earned. Messages for the person at the terminal go to stderr and
are not affected.
"""

from __future__ import annotations

import os
import sys

import typer


def echo(text: str) -> None:
    """``typer.echo`` to stdout, silent once the reader has gone."""
    try:
        typer.echo(text)
    except BrokenPipeError:
        _discard_stdout()


def _discard_stdout() -> None:
    # What is still buffered goes to /dev/null too, so the interpreter's last flush at exit
    # does not report the broken pipe either.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
