"""The long-lived servers a command starts: ``serve`` (HTTP), ``mcp`` (stdio) and ``tui``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from citeloom.domain.errors import ConfigError, ExitCode
from citeloom.entrypoints.cli.base import ConfigOpt, app, handle_errors, print_json, tell
from citeloom.entrypoints.stdout import echo


@app.command()
@handle_errors
def serve(
    config: ConfigOpt = Path("citeloom.toml"),
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to bind. Anything but loopback needs a bearer token in "
            "CITELOOM_SERVE_TOKEN.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port", min=1, max=65535, help="Port to listen on; one in use is exit 2, at once."
        ),
    ] = 8765,
) -> None:
    """Serve query, answer and check over a local HTTP API (OpenAPI docs at /docs).

    POST /query, /answer, /check; GET /projects, /health; the MCP tools at /mcp/. Each model
    is loaded once and the embedded index stays open, handed at once to a `citeloom ingest`
    that waits for it. While it runs, `citeloom query`, `answer` and `check` with the same
    config (and CITELOOM_* settings) send their requests to it: the same output,
    without loading a model (--local: not). Each request runs under [serve] timeout_s, then
    answers 503 with Retry-After. With CITELOOM_SERVE_TOKEN set (visible ASCII), requests
    need 'Authorization: Bearer TOKEN'.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import http

    settings = bootstrap.settings(config)
    # before loading anything: refuse an unprotected public bind or an unsendable token,
    # and take the port (a busy one is a usage error, told at once)
    token = http.serve_token(host)
    listener = http.bind(host, port)
    tell(f"citeloom serving on http://{host}:{port} (docs: /docs); Ctrl-C stops it")
    http.run(settings, listener, token, config)


@app.command()
@handle_errors
def mcp(
    config: ConfigOpt = Path("citeloom.toml"),
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Print what an MCP client would see (tools, projects, model load time) and "
            "exit instead of serving.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --check: print JSON.")] = False,
) -> None:
    """Serve citeloom's tools to AI editors (Claude Desktop, Cursor, Zed) over stdio (MCP).

    Tools: list_projects, inspect_collection, query_hybrid, answer, check_citations,
    find_chunks, get_passage, store_chunks, list_notes, delete_notes. The embedding model
    loads on the first call and stays loaded, and the embedded index stays open between
    calls, handed at once to a `citeloom ingest` that waits for it (a call made while the
    ingest holds it waits for it up to its time limit). Each call is limited to [mcp]
    timeout_s (default 15 s). Logs go to stderr.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import mcp_server

    settings = bootstrap.settings(config)
    if not check:
        mcp_server.serve_stdio(settings)
        return
    report = mcp_server.check(settings)
    if as_json:
        print_json(report.dump())
    else:
        from citeloom.entrypoints import render

        echo(render.mcp_check_text(report))
    if report.errors:
        raise typer.Exit(int(ExitCode.USAGE))


@app.command()
@handle_errors
def tui(
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            "-p",
            help="Project to open first (default: the first configured; p switches).",
            show_default=False,
        ),
    ] = None,
    config: ConfigOpt = Path("citeloom.toml"),
) -> None:
    """Ask, read and cite in the terminal: the verified answer with a confidence bar, the
    passages with citekey, printed page and section, each readable between its neighbours.

    Keys: enter asks (in the box) or reads a result; c copies its pandoc citation, y the
    quote (the terminal's clipboard, over SSH too); o opens the PDF at the page; k and s keep
    only that paper or section, f edits the filters, p switches project, / asks again,
    ctrl+q quits. Fits 80x24. The model stays loaded and the index open between questions;
    an ingest in another terminal gets the index as soon as it waits for it.
    """
    from citeloom import bootstrap

    settings = bootstrap.settings(config)
    if project is None:
        if not settings.project:
            raise ConfigError(
                f'{config} configures no project. Add a [project."NAME"] table (see the '
                "README's Configuration), then run citeloom tui again."
            )
        project = sorted(settings.project)[0]
    settings.get_project(project)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ConfigError(
            "citeloom tui needs a terminal to draw on (stdin and stdout are not one). In a "
            f'script, use citeloom answer "QUESTION" --project {project} or citeloom query.'
        )
    from citeloom.entrypoints.tui.app import run

    run(settings, project)
