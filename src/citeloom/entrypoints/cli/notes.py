"""``citeloom notes``: the notes stored beside a project's papers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from citeloom.entrypoints.cli.base import (
    ConfigOpt,
    JsonOpt,
    ProjectOpt,
    app,
    application,
    handle_errors,
    print_json,
)
from citeloom.entrypoints.stdout import echo

notes_app = typer.Typer(
    help="The notes stored beside a project's papers (MCP store_chunks): list and delete them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(notes_app, name="notes")


@notes_app.command("list")
@handle_errors
def notes_list(
    project: ProjectOpt = ...,  # type: ignore[assignment]
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """List a project's notes: id, the paper and page they are on, tags, first words."""
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import Request, build
    from citeloom.services.usecases.notes import LIST_NOTES

    listed = application(config).run(LIST_NOTES, build(Request, project=project))
    if as_json:
        print_json(listed.dump())
    else:
        echo(render.notes_text(listed))


@notes_app.command("delete")
@handle_errors
def notes_delete(
    doc_ids: Annotated[list[str], typer.Argument(help="Note ids, as `notes list` shows them.")],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Delete notes by id (every chunk of each); an id that is not a note deletes nothing."""
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.notes import DELETE_NOTES, DeleteNotesRequest

    request = build(DeleteNotesRequest, project=project, doc_ids=doc_ids)
    deleted = application(config).run(DELETE_NOTES, request)
    if as_json:
        print_json(deleted.dump())
    else:
        n = len(deleted.deleted)
        echo(f"deleted {n} note{'' if n == 1 else 's'}: {' '.join(deleted.deleted)}")
