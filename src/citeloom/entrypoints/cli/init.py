"""``init``: a researcher's first ``citeloom.toml``, written from what is on their machine.

It finds Zotero's data directory (its default place and the one Zotero's settings name),
Better BibTeX's auto-exports and other library files, and a folder of PDFs; shows what it
found; asks for each (Enter takes the guess, ``none`` leaves it out), or takes them from the
options (``--yes`` takes the guesses); checks each answer (a data directory holds
zotero.sqlite, a library file reads and has entries); and writes a commented config with one
project that ``citeloom validate`` passes. An existing file is never replaced without
``--force``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from citeloom.domain.errors import ConfigError
from citeloom.entrypoints.cli.base import ConfigOpt, app, handle_errors
from citeloom.entrypoints.stdout import echo, echo_err

if TYPE_CHECKING:
    from citeloom.adapters.zotero.locate import Found
    from citeloom.domain.first_config import FirstProject

NONE = "none"  # the answer (or option value) that leaves a part out
T = TypeVar("T")

_ZOTERO_HELP = (
    "Zotero's data directory (holding zotero.sqlite); 'none' for no Zotero. Default: the one "
    "Zotero's settings name, else ~/Zotero."
)
_REFERENCES_HELP = (
    "The library as a file: a Better BibTeX export (.bib or CSL JSON); 'none' for none. "
    "Default: Better BibTeX's auto-export, else a library file found nearby."
)
_PAPERS_HELP = (
    "The folder of your PDFs, what `citeloom ingest` reads without paths; 'none' for none. "
    "Default: a folder such as papers/ that holds PDFs."
)


@app.command()
@handle_errors
def init(
    zotero: Annotated[
        str | None, typer.Option("--zotero", metavar="DIR", help=_ZOTERO_HELP)
    ] = None,
    references: Annotated[
        str | None, typer.Option("--references", metavar="FILE", help=_REFERENCES_HELP)
    ] = None,
    papers: Annotated[
        str | None, typer.Option("--papers", metavar="DIR", help=_PAPERS_HELP)
    ] = None,
    project: Annotated[
        str | None,
        typer.Option("--project", "-p", help="The project's name (default: this folder's name)."),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Ask nothing: take what was found for what is not given."),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the config file if it exists.")
    ] = False,
    config: ConfigOpt = Path("citeloom.toml"),
) -> None:
    """Write a first citeloom.toml from your Zotero library, Better BibTeX export and papers.

    Looks for Zotero's data directory (~/Zotero, or where Zotero's settings moved it), Better
    BibTeX's auto-exports and other .bib or CSL JSON files, and a folder of PDFs; asks about
    each (Enter takes what was found, 'none' leaves it out) unless given as options or --yes;
    then writes one project that `citeloom validate` passes. Never replaces an existing file
    without --force.
    """
    from citeloom.adapters.first_setup import discover
    from citeloom.adapters.zotero.locate import auto_exports
    from citeloom.domain.first_config import FirstProject, check_project_name, project_name_for

    if config.is_dir():
        raise ConfigError(f"{config}: is a folder. Name the file to write: --config FILE.toml.")
    if config.exists() and not force:
        raise ConfigError(
            f"{config}: already exists, and init never replaces a config. Pass --force to "
            "replace it, or --config OTHER.toml to write another."
        )
    folder = config.resolve().parent
    home = Path.home()
    named = _given(zotero)
    found = discover(folder, home, os.environ, named if isinstance(named, Path) else None)
    asking = not yes
    if asking and None in (zotero, references, papers, project):
        _show(found.zotero, "Zotero data directory")
        _show(found.references, "library file")
        _show(found.papers, "papers folder")

    library = _choose("Zotero data directory", zotero, found.zotero, asking, _zotero_dir, home)
    if library is not None and library not in {z.path for z in found.zotero}:
        found.references[:0] = auto_exports(library)  # a directory named in the answer
    export = _choose(
        "Library file, a Better BibTeX export",
        references,
        found.references,
        asking,
        _library_file,
        home,
    )
    pdfs = _choose("Papers folder", papers, found.papers, asking, _papers_dir, home)
    if library is None and export is None:
        raise ConfigError(
            "no library: citeloom needs Zotero's data directory or a Better BibTeX export to "
            "label what it stores. Pass --zotero DIR (the folder holding zotero.sqlite) or "
            "--references FILE (a .bib or CSL JSON export)."
        )
    name = project or project_name_for(folder, home)
    if project is None and asking:
        name = _ask("Project name", name, check_project_name)
    first = FirstProject(check_project_name(name), library, export, pdfs)
    _write(config, first, folder, home)


def _given(value: str | None) -> Path | str | None:
    """An option's value as a path; ``""`` for ``none``; None when not given."""
    if value is None:
        return None
    if value.strip().lower() == NONE:
        return ""
    return Path(value).expanduser().resolve()


def _show(found: list[Found], what: str) -> None:
    if not found:
        echo(f"No {what} found.")
    for place in found:
        echo(f"Found {what}: {place.path} ({place.how})")


def _choose(
    what: str,
    given: str | None,
    found: list[Found],
    asking: bool,
    check: Callable[[Path], Path],
    home: Path,
) -> Path | None:
    """The part as given, else as answered, else the first guess (``--yes``); None: left
    out. An answer that does not hold is said and asked again; an option that does not is
    an error."""
    value = _given(given)
    if value == "":
        return None
    if isinstance(value, Path):
        return check(value)
    if not asking:  # --yes: the first guess that holds
        for place in found:
            try:
                return check(place.path)
            except ConfigError as error:
                echo_err(f"note: passed over {place.path}: {error}")
        return None
    guess = str(found[0].path) if found else NONE

    def answer(text: str) -> Path | None:
        picked = _given(text)
        return check(picked) if isinstance(picked, Path) else None

    return _ask(f"{what} ('{NONE}' for none)", _tilde(guess, home), answer)


def _ask(prompt: str, default: str, check: Callable[[str], T]) -> T:
    """Ask until the answer holds; no answer at all (standard input closed) is an error
    that says how to run without asking."""
    while True:
        try:
            text = typer.prompt(prompt, default=default)
        except typer.Abort:
            echo("")  # the prompt's line ends before the message
            raise ConfigError(
                "no answer on standard input: run citeloom init in a terminal, or pass --yes "
                "(and --zotero, --references, --papers, --project to choose)."
            ) from None
        try:
            return check(str(text).strip())
        except ConfigError as error:
            echo_err(f"error: {error}")


def _tilde(path: str, home: Path) -> str:
    shown = Path(path)
    if shown.is_absolute() and shown.is_relative_to(home):
        return "~/" + shown.relative_to(home).as_posix()
    return path


def _zotero_dir(path: Path) -> Path:
    from citeloom.adapters.zotero.locate import is_data_dir

    if not is_data_dir(path):
        raise ConfigError(
            f"{path}: not a Zotero data directory (no zotero.sqlite in it). Zotero shows "
            "its data directory under Settings > Advanced > Files and Folders."
        )
    return path


def _library_file(path: Path) -> Path:
    """A library file that reads and holds entries, as ``validate`` will require."""
    from citeloom.adapters.csl_references import read_library

    library = read_library(path)  # a ReferencesError names the file and the fix
    if not library.references:
        raise ConfigError(
            f"{path}: holds no entries. Export the library again from Zotero (Better BibTeX: "
            "right-click the library, Export Library..., Keep updated) and name that file."
        )
    return path


def _papers_dir(path: Path) -> Path:
    if not path.is_dir():
        raise ConfigError(f"{path}: no such folder. Name the folder that holds your PDFs.")
    return path


def _write(config: Path, first: FirstProject, folder: Path, home: Path) -> None:
    """Write the file whole (a half-written config is never left), read it back as every
    command will, and say what comes next."""
    from citeloom.config import load_settings
    from citeloom.domain.first_config import render_config, shown_path

    text = render_config(first, folder, home)
    partial = config.with_name(f".{config.name}.init")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, config)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise ConfigError(
            f"{config}: cannot be written ({error.strerror or error}). Choose a folder you "
            "can write to, or --config FILE."
        ) from error
    load_settings(config)  # what every command will read: it must parse as written
    parts = [
        f"Zotero at {shown_path(first.zotero, folder, home)}" if first.zotero else None,
        f"library file {shown_path(first.references, folder, home)}" if first.references else None,
    ]
    echo(f"Wrote {config}: project '{first.name}' reads {' and '.join(p for p in parts if p)}.")
    if first.papers is not None:
        echo(f"Papers folder: {shown_path(first.papers, folder, home)}.")
    flag = "" if config == Path("citeloom.toml") else f" -c {config}"
    steps = [(f"citeloom validate -p {first.name}{flag}", "config, library, model, index")]
    if first.zotero is not None:
        steps.append((f"citeloom ingest -p {first.name}{flag}", "Zotero's PDF attachments"))
    if first.papers is not None:
        where = shown_path(first.papers, Path.cwd().resolve(), home)
        steps.append((f"citeloom ingest {where} -p {first.name}{flag}", "the papers folder"))
    if first.zotero is None and first.papers is None:
        steps.append((f"citeloom ingest ~/papers -p {first.name}{flag}", "your folder of PDFs"))
    width = max(len(command) for command, _ in steps)
    echo("Next:")
    for command, why in steps:
        echo(f"  {command:<{width}}   # {why}")
