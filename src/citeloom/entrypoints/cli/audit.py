"""``citeloom audit``: the audits of ingest runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from citeloom.entrypoints.cli.base import (
    ConfigOpt,
    JsonOpt,
    app,
    application,
    handle_errors,
    print_json,
)
from citeloom.entrypoints.stdout import echo

audit_app = typer.Typer(
    help="Read the audits of ingest runs (one JSONL file per run under [paths] audit_dir).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(audit_app, name="audit")


@audit_app.command("show")
@handle_errors
def audit_show(
    correlation_id: Annotated[
        str, typer.Argument(help="The id ingest printed (a unique prefix is enough).")
    ],
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Summarise one ingest run: outcome, documents by status, failures, unmatched, OCR."""
    from citeloom.entrypoints import render
    from citeloom.services.usecases.audit import AUDIT_RUN, RunRequest
    from citeloom.services.usecases.base import build

    summary = application(config).run(AUDIT_RUN, build(RunRequest, correlation_id=correlation_id))
    if as_json:
        print_json(summary.dump())
    else:
        echo(render.run_text(summary))


@audit_app.command("list")
@handle_errors
def audit_list(
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """List ingest runs, newest last."""
    from citeloom.entrypoints import render
    from citeloom.services.usecases.audit import AUDIT_RUNS
    from citeloom.services.usecases.base import NoRequest

    listed = application(config).run(AUDIT_RUNS, NoRequest())
    if as_json:
        print_json(listed.dump())
        return
    for run in listed.runs:
        echo(render.run_line(run))
