"""What every command shares: the typer app and its common options, the one error handler
(a message and a documented exit code, never a traceback), the use cases over a config, and
the hand-off of a request to a running ``citeloom serve``."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup

from citeloom import __version__
from citeloom.domain.errors import CiteloomError, EveryPathRefused, ExitCode
from citeloom.entrypoints.outcomes import internal
from citeloom.entrypoints.stdout import echo, echo_err, json_text, one_line

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citeloom.services.application import Citeloom
    from citeloom.services.usecases.dependencies import RunDisplay

# The order --help lists the commands in: the first day's, a run's order, then the
# collection's, then the doors.
ORDER = (
    "init", "ingest", "watch", "query", "answer", "check", "serve", "validate", "inspect",
    "reindex", "export", "import", "drop", "rename-project", "mcp", "tui", "audit", "notes",
)  # fmt: skip


class _Commands(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(self.commands, key=lambda name: (*ORDER, name).index(name))


app = typer.Typer(
    name="citeloom",
    cls=_Commands,
    help=(
        "Citation-aware scholarly ingest and retrieval. Turns PDFs into citable chunks in a "
        "per-project Qdrant collection, matched to your Zotero library (its data directory, "
        "or a Better BibTeX export: CSL-JSON, BibLaTeX or BibTeX), and returns passages with "
        "[@citekey, p. N] labels."
    ),
    epilog="Exit codes: 0 ok, 1 some documents failed, 2 usage/config error, "
    "3 index unavailable or busy, 4 the write guard refused (another embedding model, other "
    "languages, another project's collection), 5 disk full or failing, "
    "70 internal error, 130 interrupted; check: 1 when a citation has a verdict of --fail-on.",
    no_args_is_help=True,
    # --install-completion / --show-completion: Typer's scripts for bash, zsh, fish and
    # PowerShell; a completion asks this program, so commands, options and choices stay current
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

ConfigOpt = Annotated[
    Path,
    typer.Option(
        "--config",
        "-c",
        help="Config file; relative paths inside it resolve against its folder.",
        envvar="CITELOOM_CONFIG",
    ),
]
ProjectOpt = Annotated[
    str, typer.Option("--project", "-p", help='Project id, a [project."ID"] table in the config.')
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]
DownloadOpt = Annotated[
    bool,
    typer.Option(
        "--allow-download",
        help="Let FastEmbed download an embedding model that is not on this machine (needs "
        "FastEmbed and the network; otherwise nothing is ever downloaded).",
    ),
]
LocalOpt = Annotated[
    bool,
    typer.Option(
        "--local",
        help="Work in this process even when a citeloom serve for this config is running "
        "(by default the request goes to it: same output, without loading a model).",
    ),
]


class ProgressMode(StrEnum):
    auto = "auto"  # a bar on a terminal, plain lines elsewhere, none with --json
    json = "json"  # every event as one JSON object per line on stderr


ProgressOpt = Annotated[
    ProgressMode,
    typer.Option(
        "--progress",
        help="auto: a bar on a terminal, a line per document elsewhere, nothing with --json. "
        "json: one JSON object per line on stderr for each event (started, document, "
        "finished; warnings and errors too); stdout is unchanged.",
    ),
]

F = TypeVar("F", bound=Callable[..., Any])
_state = {"verbose": 0, "stderr_json": False}


def stderr_as_json() -> None:
    """``--progress json``: from here on every line this process writes on stderr is one JSON
    object (the run's events, notes, warnings of the log, the error that stops it), so a
    script reads stderr line by line without meeting text it cannot parse."""
    from citeloom.entrypoints.logs import log_as_json

    _state["stderr_json"] = True
    log_as_json()


def _json_err(data: dict[str, Any]) -> None:
    from citeloom.entrypoints.progress import json_event

    json_event(data)


def _say_error(message: str, code: int | None = None) -> None:
    if _state["stderr_json"]:
        _json_err({"event": "error", "error": message, **({"exit_code": code} if code else {})})
    else:
        echo_err(f"error: {message}")


def _fail(message: str, code: int) -> None:
    _say_error(message, code)
    raise typer.Exit(code)


def handle_errors(command: F) -> F:
    """One clear message and a documented exit code instead of a traceback."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except EveryPathRefused as error:  # one line each, as the paths were given
            for problem in error.problems[:-1]:
                _say_error(one_line(problem))
            _fail(one_line(error.problems[-1]), int(error.exit_code))
        except CiteloomError as error:
            _fail(str(error), int(error.exit_code))
        except KeyboardInterrupt:
            _fail("interrupted", int(ExitCode.INTERRUPTED))
        except typer.Exit:
            raise
        except Exception as error:
            if _state["verbose"]:
                raise
            _fail(
                f"{internal(error)}. Run again with -v for the traceback and report it.",
                int(ExitCode.INTERNAL),
            )
        return None

    return wrapper  # type: ignore[return-value]


def tell(message: str) -> None:
    """A note for the person at the terminal (stderr, so --json output stays clean)."""
    if _state["stderr_json"]:
        _json_err({"event": "note", "message": message})
    else:
        echo_err(message)


def print_json(data: dict[str, Any]) -> None:
    echo(json_text(data))


def application(
    config: Path, on_wait: Callable[[str], None] = tell, display: RunDisplay | None = None
) -> Citeloom:
    """The use cases over this config, for one command: the index opened for each unit of
    work, the person at the terminal told (``on_wait``) while another process holds it, and a
    long run shown by ``display``."""
    from citeloom import bootstrap
    from citeloom.bootstrap.application import application as build

    return build(bootstrap.settings(config), on_wait=on_wait, display=display)


M = TypeVar("M", bound="BaseModel")


def handed(
    config: Path, local: bool, route: str, fields: dict[str, Any], model: type[M]
) -> M | None:
    """The response of a running ``citeloom serve`` for this config to the request of
    ``fields`` (``entrypoints/handoff.py``), or None: do the work here. The fields go as they
    are: the server validates them with the request model, and a request it refuses is done
    here, where the same model refuses it in the same words. The CLI prints the response as
    it prints its own (the server sends no text of the terminal's)."""
    if local:
        return None
    from pydantic import ValidationError

    from citeloom.entrypoints.handoff import hand_off

    body = {name: value for name, value in fields.items() if value is not None}
    data = hand_off(config, route, body)
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:  # not an answer of this version: the work is done here
        return None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"citeloom {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="More log output (-vv: debug).")
    ] = 0,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    from citeloom.entrypoints.logs import configure_logging

    _state["verbose"] = verbose
    configure_logging(verbose)
