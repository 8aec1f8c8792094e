"""The ``citeloom`` command line.

Exit codes (also in the README):
  0  success
  1  some documents failed (the others went in)
  2  usage or configuration error
  3  index unavailable (server down, or the embedded index is busy)
  4  embedding-model mismatch (the write guard refused)
  5  a disk is full or failing (the run stopped before the document in hand was stored)
     (check: 1 when a citation has a verdict of --fail-on)
 70  internal error (a bug: run with -v and report it)
130  interrupted (Ctrl-C; watch ends with 0 on Ctrl-C or SIGTERM, 130 on a second one)

Heavy modules are imported inside the commands that need them: ``--help`` and ``query`` never
import Docling or torch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from citeloom import __version__
from citeloom.domain.errors import CiteloomError, ConfigError, ExitCode
from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K
from citeloom.domain.verdicts import Verdict
from citeloom.entrypoints.stdout import echo, echo_err, json_text, one_line

INTERNAL_ERROR = 70
INTERRUPTED = 130

app = typer.Typer(
    name="citeloom",
    help=(
        "Citation-aware scholarly ingest and retrieval. Turns PDFs into citable chunks in a "
        "per-project Qdrant collection, matched to your Zotero (Better BibTeX CSL-JSON) "
        "library, and returns passages with [@citekey, p. N] labels."
    ),
    epilog="Exit codes: 0 ok, 1 some documents failed, 2 usage/config error, "
    "3 index unavailable or busy, 4 embedding-model mismatch, 5 disk full or failing, "
    "70 internal error, 130 interrupted; check: 1 when a citation has a verdict of --fail-on.",
    no_args_is_help=True,
    add_completion=False,
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

F = TypeVar("F", bound=Callable[..., Any])
_state = {"verbose": 0}


def _fail(message: str, code: int) -> None:
    echo_err(f"error: {message}")
    raise typer.Exit(code)


def handle_errors(command: F) -> F:
    """One clear message and a documented exit code instead of a traceback."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except CiteloomError as error:
            _fail(str(error), int(error.exit_code))
        except KeyboardInterrupt:
            _fail("interrupted", INTERRUPTED)
        except typer.Exit:
            raise
        except Exception as error:
            if _state["verbose"]:
                raise
            _fail(
                f"internal error ({type(error).__name__}: {error}). Run again with -v for the "
                "traceback and report it.",
                INTERNAL_ERROR,
            )
        return None

    return wrapper  # type: ignore[return-value]


def _tell(message: str) -> None:
    """A note for the person at the terminal (stderr, so --json output stays clean)."""
    echo_err(message)


def _print_json(data: dict[str, Any]) -> None:
    echo(json_text(data))


def _served(
    config: Path, local: bool, route: str, body: dict[str, Any], fmt: str
) -> dict[str, Any] | None:
    """The response of a running ``citeloom serve`` for this config, with the text rendered
    as ``fmt`` (``entrypoints/handoff.py``), or None: do the work here."""
    if local:
        return None
    from citeloom.entrypoints.handoff import hand_off

    data = hand_off(config, route, body if fmt == "json" else {**body, "render": fmt})
    if data is None or (fmt != "json" and not isinstance(data.get("rendered"), str)):
        return None
    return data


def _show_served(data: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        _print_json({key: value for key, value in data.items() if key != "rendered"})
    else:
        echo(data["rendered"])


def _refuse_unreadable(paths: list[Path]) -> tuple[list[Path], list[Any]]:
    """The paths to go on with, and those refused at once, each said in one line, before any
    index is opened: a named pipe or a device would hold it for ever (``refuse_unreadable``)."""
    from citeloom.services.ingest import refuse_unreadable

    given, refused = refuse_unreadable(paths)
    for outcome in refused:
        _tell(f"error: {one_line(outcome.error or '')}")  # a name from a glob: one line
    return given, refused


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


@app.command()
@handle_errors
def ingest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Documents (PDF, DOCX, HTML, Markdown, text) or folders, searched "
            "recursively. Default: [paths] raw_dir.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOpt = ...,  # type: ignore[assignment]
    citekey: Annotated[
        str | None,
        typer.Option(
            "--citekey",
            help="The library entry of the one file given (wins over DOI and title matching).",
        ),
    ] = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Remove stored documents whose files are gone from these folders."
        ),
    ] = False,
    zotero: Annotated[
        Path | None,
        typer.Option(
            "--zotero",
            help="A Zotero data directory (holding zotero.sqlite): ingest its PDF attachments, "
            "each labelled with its own item, and read the library from it (as the project's "
            "zotero = DIR does).",
            show_default=False,
        ),
    ] = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Convert, chunk, embed and store documents in the project's collection.

    Prints one line per document and a summary with the run's correlation id; the audit of
    the run is written to [paths] audit_dir/<correlation id>.jsonl. Documents already stored
    are re-labelled when the references file changed (no re-embedding). A project with a
    Zotero library and no path given ingests the library's PDF attachments.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.entrypoints.progress import StopRequest, ingest_progress

    settings = bootstrap.settings(config)
    if zotero is not None:
        settings = bootstrap.with_zotero(settings, project, zotero)
    from_library = settings.get_project(project).zotero is not None and (
        not paths or zotero is not None
    )
    raw_dir = settings.paths.raw_dir
    if not paths and not from_library and not raw_dir.exists():
        raise ConfigError(
            f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does not exist. "
            f"Pass the folder of your papers (citeloom ingest ~/papers -p {project}), or put "
            "them in raw_dir."
        )
    given, refused = _refuse_unreadable(paths or [])
    if refused and not given and not from_library:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))
    stop = StopRequest()
    with bootstrap.index(settings, on_wait=_tell) as index:
        service = bootstrap.ingest_service(settings, project, index)
        with stop.installed(), ingest_progress(not as_json, render.document_line) as progress:
            report = service.run(
                given or ([] if from_library else [raw_dir]),
                progress=progress,
                citekey=citekey,
                prune=prune,
                should_stop=stop,
                from_library=from_library,
                refused=refused,
            )
    if as_json:
        from citeloom.entrypoints.report_schemas import IngestResponse

        _print_json(IngestResponse.of(report).dump())
    else:
        echo(render.ingest_summary(report))
    if report.interrupted:
        raise typer.Exit(INTERRUPTED)
    if report.totals["failed"]:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))


@app.command()
@handle_errors
def watch(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Folders (or files) to follow, as for ingest. Default: the project's Zotero "
            "directory when it has one, else [paths] raw_dir.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOpt = ...,  # type: ignore[assignment]
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Remove stored documents whose files are gone (default: the project's "
            "prune setting).",
        ),
    ] = False,
    settle: Annotated[
        float,
        typer.Option(
            "--settle",
            min=0.05,
            max=600,
            help="Seconds without changes before a batch is ingested (files must also keep "
            "their size and time that long).",
        ),
    ] = 1.0,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per line for each event.")
    ] = False,
) -> None:
    """Keep the project's collection in step with its folders, references file and Zotero
    library: after each settled batch of changes, ingest what is new or changed, relabel
    after a library change and (with prune) remove what is gone. Ctrl-C or SIGTERM finishes
    the document in hand and stops (exit 0); a second one stops at once (exit 130).
    """
    import signal

    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.entrypoints.progress import StopRequest

    settings = bootstrap.settings(config)
    spec = settings.get_project(project)
    raw_dir = settings.paths.raw_dir
    if not paths and spec.zotero is None:
        if not raw_dir.exists():
            raise ConfigError(
                f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does not "
                f"exist. Pass the folder of your papers (citeloom watch ~/papers -p {project}), "
                "or give the project a zotero directory."
            )
        paths = [raw_dir]
    given, refused = _refuse_unreadable(paths or [])
    if refused and not given:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))
    paths = given or None
    status = render.WatchStatus(as_json)
    stop = StopRequest()
    service = bootstrap.watch_service(
        settings, project, list(paths or []), prune or spec.prune, status.waiting, settle
    )
    with stop.installed((signal.SIGINT, signal.SIGTERM)):
        service.run(status.show, should_stop=stop)
    status.close()


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    context = "context"


@app.command()
@handle_errors
def query(
    text: Annotated[
        str,
        typer.Argument(
            help='What you are looking for, in your own words. "Quoted phrases" must occur '
            "verbatim in every result."
        ),
    ],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    top_k: Annotated[
        int | None,
        typer.Option(
            "--top-k",
            "-k",
            min=1,
            max=MAX_TOP_K,
            help=f"Passages to return at most [default: {DEFAULT_TOP_K}; with --budget, as "
            f"many as fit, up to {MAX_TOP_K}].",
            show_default=False,
        ),
    ] = None,
    per_doc: Annotated[
        int | None,
        typer.Option(
            "--per-doc",
            min=0,
            help="Passages from one document at most (0: no limit). Default: [query] per_doc.",
            show_default=False,
        ),
    ] = None,
    citekey: Annotated[
        list[str] | None, typer.Option("--citekey", help="Only these papers (repeatable).")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only papers with this tag (repeatable).")
    ] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option(
            "--collection",
            help='Only papers in this library collection, as a path: "Thesis/Chapter 2" '
            "(repeatable).",
        ),
    ] = None,
    year_from: Annotated[int | None, typer.Option("--year-from", help="Published from.")] = None,
    year_to: Annotated[int | None, typer.Option("--year-to", help="Published until.")] = None,
    section: Annotated[
        str | None, typer.Option("--section", help="Words that must occur in the section path.")
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            min=1,
            help="Return the best passages until this many tokens are spent (for LLM context).",
        ),
    ] = None,
    output: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            help="text for people, json for scripts, markdown or context with pandoc "
            "citations ([@key, p. 12]) for drafts and LLM prompts.",
        ),
    ] = OutputFormat.text,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    local: LocalOpt = False,
) -> None:
    """Return the best passages with citation labels ([@citekey, p. N]) and section paths.

    Full-text (BM25) and vector candidates are fused, near-duplicates collapse, and results
    never leave the project. When the library does not seem to answer the question, the
    passages are still listed but the answer is marked as not confident (JSON: answerable).
    """
    fmt = OutputFormat.json if as_json else output
    body = {
        "project": project,
        "query": text,
        "top_k": top_k,
        "per_doc": per_doc,
        "citekeys": citekey or [],
        "tags": tag or [],
        "collections": collection or [],
        "year_from": year_from,
        "year_to": year_to,
        "section": section,
        "budget": budget,
    }
    if served := _served(config, local, "/query", body, fmt.value):
        return _show_served(served, fmt.value)

    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.entrypoints.query_options import query_options

    settings = bootstrap.settings(config)
    settings.get_project(project)
    options = query_options(
        settings,
        top_k=top_k,
        per_doc=per_doc,
        citekeys=citekey or (),
        tags=tag or (),
        collections=collection or (),
        year_from=year_from,
        year_to=year_to,
        section=section,
        budget=budget,
    )
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = bootstrap.query_service(settings, project, index).search(text, options)
    if fmt is OutputFormat.json:
        from citeloom.entrypoints.schemas import QueryResponse

        _print_json(QueryResponse.from_report(report).dump())
    else:
        echo(render.QUERY_FORMATS[fmt.value](report))


class AnswerFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


@app.command()
@handle_errors
def answer(
    question: Annotated[str, typer.Argument(help="Your question, in your own words.")],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    output: Annotated[
        AnswerFormat,
        typer.Option(
            "--format",
            "-f",
            help="text for people, json for scripts, markdown for a paste-ready quote with "
            "its pandoc citation.",
        ),
    ] = AnswerFormat.text,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    local: LocalOpt = False,
) -> None:
    """Answer with the library's own sentences, verbatim, each cited to its page.

    The best-supporting sentence of the top passages and at most two close runners-up, each
    checked to occur on the cited page of the stored document text. When the library does
    not answer the question: "No answer found in the library." and the nearest passages.
    """
    fmt = AnswerFormat.json if as_json else output
    body = {"project": project, "question": question}
    if served := _served(config, local, "/answer", body, fmt.value):
        return _show_served(served, fmt.value)

    from citeloom import bootstrap
    from citeloom.entrypoints import render

    settings = bootstrap.settings(config)
    settings.get_project(project)
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = bootstrap.answer_service(settings, project, index).answer(question)
    if fmt is AnswerFormat.json:
        from citeloom.entrypoints.schemas import AnswerResponse

        _print_json(AnswerResponse.from_report(report).dump())
    else:
        echo(render.ANSWER_FORMATS[output.value](report))


CITATIONS_UNSUPPORTED = 1


def _verdicts(option: str | None) -> frozenset[Verdict] | None:
    """--fail-on as verdicts; an unknown name is a usage error naming the known ones."""
    if option is None:
        return None
    from citeloom.domain.verdicts import parse_verdicts

    try:
        return parse_verdicts([option])
    except ValueError as error:
        raise ConfigError(f"--fail-on: {error}") from error


@app.command()
@handle_errors
def check(
    draft: Annotated[
        Path, typer.Argument(help="A Markdown draft with pandoc citations, or a LaTeX file.")
    ],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
    local: LocalOpt = False,
    fail_on: Annotated[
        str | None,
        typer.Option(
            "--fail-on",
            help="Comma-separated verdicts that make the exit code 1, e.g. "
            "mismatch,not-found. Default: [check] fail_on (all but supported, unconfirmed and "
            "other-page).",
        ),
    ] = None,
) -> None:
    """Check that each cited paper supports the sentence citing it, on the cited pages.

    Verdicts: supported, mismatch (names what differs), unconfirmed (the page discusses it,
    citeloom cannot confirm it), other-page (says which page), no-page (says the page to
    add), no-such-page, not-found (lists other papers that support it), unknown-key (not in
    the references file), not-ingested (in the library, no document). Exit 1 when a
    citation has a verdict of --fail-on, 0 otherwise: usable in a writing pipeline or a
    pre-commit hook. A note names the version of record to cite instead of a preprint, a
    warning a retracted paper; neither changes the verdict.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import render

    try:
        text = draft.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"{draft}: cannot be read as a UTF-8 text draft ({error}). Pass a Markdown or "
            "LaTeX file."
        ) from error
    latex = draft.suffix.lower() in (".tex", ".ltx")
    fmt = "json" if as_json else "text"
    failing = _verdicts(fail_on)
    body: dict[str, Any] = {
        "project": project,
        "draft": text,
        "name": str(draft),
        "format": "latex" if latex else "auto",
    }
    if failing is not None:
        body["fail_on"] = sorted(failing)
    if text.strip() and (served := _served(config, local, "/check", body, fmt)):
        _show_served(served, fmt)
        if not served.get("ok"):
            raise typer.Exit(CITATIONS_UNSUPPORTED)
        return

    settings = bootstrap.settings(config)
    settings.get_project(project)
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = bootstrap.check_service(settings, project, index).check(
            text, str(draft), latex=latex or None, fail_on=failing
        )
    if as_json:
        from citeloom.entrypoints.schemas import CheckResponse

        _print_json(CheckResponse.from_report(report).dump())
    else:
        echo(render.check_text(report))
    if not report.ok:
        raise typer.Exit(CITATIONS_UNSUPPORTED)


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
    config (and directory and CITELOOM_* settings) send their requests to it: same output,
    without loading a model (--local: not). Each request runs under [serve] timeout_s, then
    answers 503 with Retry-After. With CITELOOM_SERVE_TOKEN set (visible ASCII), requests
    need 'Authorization: Bearer TOKEN'.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import http

    settings = bootstrap.settings(config)
    # before loading anything: refuse an unprotected public bind or an unsendable token,
    # and take the port (a busy one is a usage error, said at once)
    token = http.serve_token(host)
    listener = http.bind(host, port)
    _tell(f"citeloom serving on http://{host}:{port} (docs: /docs); Ctrl-C stops it")
    http.run(settings, listener, token, config)


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
    references file is CSL-JSON; the embedding models available here; the project's model
    loads offline (with --allow-download, FastEmbed fetches it first); the chunking tokenizer is
    the embedder's; max_tokens fits the model window; the index is reachable; the collection's
    stored embedding model equals the configured one; every stored document is whole (exit 1
    names those a killed run left in part, and the fix); staging collections interrupted
    imports or reindexes left behind.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.services.validate import Check, ValidationReport, models_check, validate_project

    report = ValidationReport(project=project)
    try:
        settings = bootstrap.settings(config)
    except CiteloomError as error:
        report.checks.append(Check("config", False, str(error)))  # its message names the fix
        settings = None
    if settings is not None:
        names = [project] if project else sorted(settings.project)
        report.checks.append(
            Check("config", True, f"{config} parses; projects: {', '.join(names) or 'none'}")
        )
        report.checks.extend(bootstrap.conversion_checks(settings))
        report.checks.append(models_check(bootstrap.available_models(settings)))
        for name in names:
            try:
                parts = bootstrap.project_components(settings, name, allow_download)
            except CiteloomError as error:
                report.checks.append(Check(f"project {name}", False, str(error)))
                continue
            for check in validate_project(name, parts):
                report.checks.append(
                    check if len(names) == 1 else replace(check, name=f"{name}: {check.name}")
                )
    if as_json:
        from citeloom.entrypoints.report_schemas import ValidationResponse

        _print_json(ValidationResponse.of(report).dump())
    else:
        echo(render.validation_text(report))
    if not report.ok:
        raise typer.Exit(max(c.exit_code for c in report.checks if not c.ok))


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
    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.services.inspection import inspect_project, inspect_relations

    settings = bootstrap.settings(config)
    chosen = settings.get_project(project)
    source = bootstrap.relations(settings, chosen) if relations else None
    with bootstrap.index(settings, on_wait=_tell) as index:
        if source is not None:
            found = inspect_relations(index, project, chosen.collection, source)
        else:
            report = inspect_project(index, project, chosen.collection)
    from citeloom.entrypoints.report_schemas import InspectResponse, RelationsResponse

    if source is not None:
        echo(
            json_text(RelationsResponse.of(found).dump())
            if as_json
            else render.relations_text(found)
        )
    elif as_json:
        _print_json(InspectResponse.of(report).dump())
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
    from citeloom import bootstrap

    settings = bootstrap.settings(config)
    settings.get_project(project)
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = bootstrap.reindex_service(
            settings, project, index, embedding_model, allow_download
        ).run()
    if as_json:
        from citeloom.entrypoints.report_schemas import ReindexResponse

        _print_json(ReindexResponse.of(report).dump())
    elif report.switched and not report.embedded:
        echo(
            f"rebuilt the BM25 vectors of {report.chunks} chunks ({report.documents} documents) "
            f"for {', '.join(report.languages)} (was {', '.join(report.old_languages)}), "
            f"without re-embedding; '{report.collection}' now uses them.\n"
            f"correlation id: {report.correlation_id}"
        )
    elif report.switched:
        echo(
            f"reindexed {report.documents} documents ({report.chunks} chunks) with "
            f"{report.new_model}; '{report.collection}' now uses it (was {report.old_model}).\n"
            f'Now set embedding_model = "{report.new_model}" in [project."{project}"] of '
            f"{config}.\ncorrelation id: {report.correlation_id}"
        )
    else:
        for failure in report.failures:
            echo(f"failed    {failure}")
        echo(
            f"reindex not switched: {len(report.failures)} documents failed; "
            f"'{report.collection}' still uses {report.old_model}."
        )
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
    from citeloom import bootstrap
    from citeloom.services.transfer import export_project

    settings = bootstrap.settings(config)
    chosen = settings.get_project(project)
    with bootstrap.index(settings, on_wait=_tell) as index:
        info = index.collection_info(chosen.collection)
        tokenizer = bootstrap.tokenizer_id(settings, info.embed_model) if info else None
        report = export_project(index, project, chosen.collection, tokenizer, file)
    if as_json:
        from citeloom.entrypoints.report_schemas import TransferResponse

        _print_json(TransferResponse.of(report).dump())
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
    from citeloom import bootstrap
    from citeloom.services.export_file import check_source
    from citeloom.services.transfer import import_project

    check_source(file)
    settings = bootstrap.settings(config)
    if to is not None:
        settings = bootstrap.with_server(settings, to)
    chosen = settings.get_project(project)
    tokenizer = bootstrap.tokenizer_id(settings, chosen.embedding_model)
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = import_project(
            index,
            project,
            chosen.collection,
            chosen.embedding_model,
            tokenizer,
            file,
            lambda: bootstrap.model_dimensions(settings, chosen),
            tuple(chosen.languages),
        )
    if as_json:
        from citeloom.entrypoints.report_schemas import TransferResponse

        _print_json(TransferResponse.of(report).dump())
    else:
        where = settings.qdrant.url or str(settings.paths.index_dir)
        echo(
            f"imported {report.points} chunks of {report.documents} documents "
            f"({report.embed_model}) into '{report.collection}' at {where}"
        )


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
    from citeloom import bootstrap
    from citeloom.entrypoints import render
    from citeloom.services.drop import drop_plan, drop_project

    settings = bootstrap.settings(config)
    collection = settings.get_project(project).collection
    others = {name: p.collection for name, p in settings.project.items() if name != project}
    if not yes and not _interactive():
        raise ConfigError(
            f"citeloom drop cannot ask before removing the collection of project '{project}' "
            "(no terminal), and it cannot be undone: pass --yes to remove it. Nothing was "
            "removed."
        )
    # the index is not held while a person reads the question
    with bootstrap.index(settings, on_wait=_tell) as index:
        plan = drop_plan(index, project, collection, others)
    where = settings.qdrant.url or str(settings.paths.index_dir)
    if plan.removed and not yes and not typer.confirm(render.drop_question(plan, where), err=True):
        echo("nothing was removed")
        return
    with bootstrap.index(settings, on_wait=_tell) as index:
        report = drop_project(index, project, collection, others)
    if as_json:
        from citeloom.entrypoints.report_schemas import DropResponse

        _print_json(DropResponse.of(report).dump())
    elif report.removed:
        echo(f"removed {', '.join(report.removed)} of project '{project}' from {where}")
    else:
        echo(f"project '{project}' has no collection at {where}; nothing to remove")


def _interactive() -> bool:
    return sys.stdin.isatty()


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

    Tools: list_projects, inspect_collection, query_hybrid, find_chunks, get_passage,
    store_chunks. The embedding model loads on the first call and stays loaded; the index is
    opened for each call and closed after it, so `citeloom ingest` can run at the same time.
    Each call is limited to [mcp] timeout_s (default 15 s). Logs go to stderr.
    """
    from citeloom import bootstrap
    from citeloom.entrypoints import mcp_server

    settings = bootstrap.settings(config)
    if not check:
        mcp_server.serve_stdio(settings)
        return
    report = mcp_server.check(settings)
    if as_json:
        _print_json(report)
    else:
        echo(_mcp_check_text(report))
    if report["errors"]:
        raise typer.Exit(int(ExitCode.USAGE))


def _mcp_check_text(report: dict[str, Any]) -> str:
    lines = [f"tools ({len(report['tools'])}): " + ", ".join(t["name"] for t in report["tools"])]
    for p in report["projects"]:
        lines.append(
            f"project {p['project']}: {p['documents']} documents, {p['chunks']} chunks, "
            f"model {p['embedding_model']} (collection {p['collection']})"
        )
    for m in report["models"]:
        lines.append(f"model {m['model']}: loaded in {m['load_s']:.2f} s")
    for e in report["errors"]:
        lines.append(f"error: {e}")
    return "\n".join(lines)


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
    from citeloom import bootstrap
    from citeloom.adapters.jsonl_audit import find_audit, read_audit
    from citeloom.entrypoints import render
    from citeloom.services.audit_report import summarise_run

    settings = bootstrap.settings(config)
    path = find_audit(settings.paths.audit_dir, correlation_id)
    summary = summarise_run(path.stem, read_audit(path))
    if as_json:
        from citeloom.entrypoints.report_schemas import RunOut

        _print_json(RunOut.of(summary).dump())
    else:
        echo(render.run_text(summary))


@audit_app.command("list")
@handle_errors
def audit_list(
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """List ingest runs, newest last."""
    from citeloom import bootstrap
    from citeloom.adapters.jsonl_audit import list_audits, read_audit
    from citeloom.entrypoints import render
    from citeloom.services.audit_report import summarise_run

    settings = bootstrap.settings(config)
    runs = [summarise_run(p.stem, read_audit(p)) for p in list_audits(settings.paths.audit_dir)]
    if as_json:
        from citeloom.entrypoints.report_schemas import RunOut, RunsResponse

        _print_json(RunsResponse(runs=[RunOut.of(r) for r in runs]).dump())
        return
    for run in runs:
        echo(render.run_line(run))


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
    from citeloom import bootstrap
    from citeloom.entrypoints import render

    settings = bootstrap.settings(config)
    with bootstrap.index(settings, on_wait=_tell) as index:
        notes = bootstrap.note_book(settings, project, index).stored()
    if as_json:
        from citeloom.entrypoints.report_schemas import NotesResponse

        _print_json(NotesResponse.of(project, notes).dump())
    else:
        echo(render.notes_text(project, notes))


@notes_app.command("delete")
@handle_errors
def notes_delete(
    doc_ids: Annotated[list[str], typer.Argument(help="Note ids, as `notes list` shows them.")],
    project: ProjectOpt = ...,  # type: ignore[assignment]
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
) -> None:
    """Delete notes by id (every chunk of each); an id that is not a note deletes nothing."""
    from citeloom import bootstrap

    settings = bootstrap.settings(config)
    with bootstrap.index(settings, on_wait=_tell) as index:
        deleted = bootstrap.note_book(settings, project, index).delete(doc_ids)
    if as_json:
        _print_json({"project": project, "deleted": deleted})
    else:
        echo(f"deleted {len(deleted)} note{'' if len(deleted) == 1 else 's'}: {' '.join(deleted)}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - outside a command
        sys.exit(INTERRUPTED)
