"""The project's collection as a whole: ``validate``, ``inspect``, ``reindex``, ``export``,
``import``, ``drop`` and ``rename-project``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from citeloom.domain.errors import CiteloomError, ConfigError, ExitCode
from citeloom.entrypoints.cli.base import (
    ConfigOpt,
    DownloadOpt,
    JsonOpt,
    ProjectOpt,
    app,
    application,
    handle_errors,
    print_json,
)
from citeloom.entrypoints.stdout import echo


@app.command()
@handle_errors
def validate(
    project: Annotated[
        str | None,
        typer.Option("--project", "-p", help="Check one project (default: all configured)."),
    ] = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
    allow_download: DownloadOpt = False,
) -> None:
    """Check the config and everything a run depends on, each with the fix when it fails.

    Checks: config parses; which layout stage converts PDFs; Tesseract and its languages;
    references file reads (CSL-JSON or BibTeX); the embedding models available here; the
    project's model loads offline (with --allow-download, FastEmbed fetches it first); the
    chunking tokenizer is the embedder's; max_tokens fits the model window; the index is
    reachable; the collection is this project's (another config may name the same index and
    collection under another project name: exit 4); its stored embedding model equals the
    configured one; every stored document is whole (exit 1 names those a killed run left in
    part, and the fix); staging collections interrupted imports or reindexes left behind.
    """
    from citeloom.entrypoints import render
    from citeloom.services.usecases.validate import VALIDATE, ValidateRequest, config_refused

    try:
        citeloom_app = application(config)
    except CiteloomError as error:  # its message names the fix
        report = config_refused(project, error)
    else:
        request = ValidateRequest(
            project=project, config=str(config), allow_download=allow_download
        )
        report = citeloom_app.run(VALIDATE, request)
    if as_json:
        print_json(report.dump())
    else:
        echo(render.validation_text(report))
    if not report.ok:
        raise typer.Exit(report.exit_code)


@app.command()
@handle_errors
def inspect(
    project: ProjectOpt = ...,  # type: ignore[assignment]
    relations: Annotated[
        bool,
        typer.Option(
            "--relations",
            help="List the relations between library entries instead: versions of one work, "
            "supersession, retractions, errata, replies, conflicts; each with its evidence, "
            "certain (applied) or possible (never applied).",
        ),
    ] = False,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Show what the project's collection holds: points, documents, embedding model.

    A document a killed run stored only in part is marked INCOMPLETE, with the fix. With
    --relations: the library's relations (inferred from the references file and the stored
    PDFs, and declared in the project's relations file).
    """
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import Request, build
    from citeloom.services.usecases.inspect import INSPECT, RELATIONS

    request = build(Request, project=project)
    if relations:
        found = application(config).run(RELATIONS, request)
        if as_json:
            print_json(found.dump())
        else:
            echo(render.relations_text(found))
        return
    report = application(config).run(INSPECT, request)
    if as_json:
        print_json(report.dump())
    else:
        echo(render.inspect_text(report))


@app.command()
@handle_errors
def reindex(
    project: ProjectOpt = ...,  # type: ignore[assignment]
    embedding_model: Annotated[
        str | None,
        typer.Option(
            "--embedding-model",
            "-m",
            help="Model of the new collection (the current one rebuilds with new chunking). "
            "Left out: only the BM25 vectors are rebuilt, for the project's languages, "
            "without re-embedding.",
        ),
    ] = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
    allow_download: DownloadOpt = False,
) -> None:
    """Rebuild the project's collection with another embedding model, from cached conversions.

    The new collection is built beside the old one and the project switches to it only when
    every document is in; until then, and if anything fails, the old one serves as before.
    Afterwards set embedding_model in the project's config to the new model. Without
    --embedding-model, after changing the project's languages: every chunk keeps its vector
    and gets BM25 terms for the new languages.
    """
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.reindex import REINDEX, ReindexRequest

    request = build(
        ReindexRequest,
        project=project,
        embedding_model=embedding_model,
        allow_download=allow_download,
    )
    report = application(config).run(REINDEX, request)
    if as_json:
        print_json(report.dump())
    else:
        echo(render.reindex_text(report, project, config))
    if not report.switched:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))


@app.command("export")
@handle_errors
def export(
    file: Annotated[
        Path,
        typer.Argument(
            help="The JSONL file to write: a new path, or a regular file it replaces once the "
            "export is complete. A link, pipe, device or folder is refused."
        ),
    ],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Write the project's chunks with their vectors to a file, to move it to another engine.

    The file is versioned JSONL: a header (format version, embedding model, dimensions,
    tokenizer fingerprint, project), then one line per chunk (id, vector, BM25 vector, payload,
    text). `citeloom import` loads it without re-embedding.
    """
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.transfer import EXPORT, ExportRequest

    report = application(config).run(EXPORT, build(ExportRequest, project=project, file=file))
    if as_json:
        print_json(report.dump())
    else:
        echo(
            f"exported {report.points} chunks of {report.documents} documents "
            f"({report.embed_model}) from '{report.collection}' to {file}"
        )


@app.command("import")
@handle_errors
def import_(
    file: Annotated[Path, typer.Argument(help="A file written by citeloom export.")],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="A Qdrant server (http://host:6333) to import into instead of [qdrant] url.",
            show_default=False,
        ),
    ] = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Load an export into the project's collection, which must be new or empty.

    Refused (exit 4, nothing written) when the file's embedding model or tokenizer is not the
    project's: its queries could not be compared with the file's vectors. Every line is
    checked before the first write; a damaged one is named with its field (exit 2).
    """
    from citeloom.services.export_file import refuse_unreadable_import
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.transfer import IMPORT, ImportRequest

    refuse_unreadable_import(file)  # before the config: the file is what the user just named
    citeloom_app = application(config)
    report = citeloom_app.run(IMPORT, build(ImportRequest, project=project, file=file, to=to))
    if as_json:
        print_json(report.dump())
    else:
        where = citeloom_app.index_location(to)
        echo(
            f"imported {report.points} chunks of {report.documents} documents "
            f"({report.embed_model}) into '{report.collection}' at {where}"
        )


def _interactive() -> bool:
    return sys.stdin.isatty()


@app.command()
@handle_errors
def drop(
    project: ProjectOpt = ...,  # type: ignore[assignment]
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Do not ask first (required without a terminal)."),
    ] = False,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Remove the project's collection, every chunk in it, and the staging collections an
    interrupted reindex or import left beside it.

    Asks first; --yes skips the question, and without a terminal (a script) --yes is
    required. The project's config, the conversion cache and the audits stay: the next
    ingest or import starts the project anew. A collection another project also uses is
    refused.
    """
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import Request, build
    from citeloom.services.usecases.drop import DROP, DROP_PLAN

    citeloom_app = application(config)
    citeloom_app.project(project)
    if not yes and not _interactive():
        raise ConfigError(
            f"citeloom drop cannot ask before removing the collection of project '{project}' "
            "(no terminal), and it cannot be undone: pass --yes to remove it. Nothing was "
            "removed."
        )
    request = build(Request, project=project)
    plan = citeloom_app.run(DROP_PLAN, request)  # the index is not held while a person reads this
    where = citeloom_app.index_location()
    if plan.removed and not yes and not typer.confirm(render.drop_question(plan, where), err=True):
        echo("nothing was removed")
        return
    report = citeloom_app.run(DROP, request)
    if as_json:
        print_json(report.dump())
    elif report.removed:
        echo(f"removed {', '.join(report.removed)} of project '{project}' from {where}")
    else:
        echo(f"project '{project}' has no collection at {where}; nothing to remove")


@app.command("rename-project")
@handle_errors
def rename_project(
    old: Annotated[str, typer.Argument(help="The name the project's collection was made under.")],
    new: Annotated[str, typer.Argument(help='The project\'s name now: its [project."NEW"] table.')],
    config: ConfigOpt = Path("citeloom.toml"),
) -> None:
    """Let a project renamed on purpose keep its collection.

    A collection records the project that made it, and refuses a project of another name
    (exit 4): another config naming the same index and collection. After renaming
    [project."OLD"] to [project."NEW"] in the config, run this once: the collection records
    NEW, and every chunk stored under OLD is stored under NEW. Nothing is re-embedded; run
    again after an interruption, it finishes. A collection of a third project is refused
    (exit 2).
    """
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.rename import RENAME, RenameRequest

    report = application(config).run(RENAME, build(RenameRequest, old=old, new=new))
    echo(
        f"collection '{report.collection}' now belongs to project '{new}': "
        f"{report.points} chunks moved from '{old}'"
    )
