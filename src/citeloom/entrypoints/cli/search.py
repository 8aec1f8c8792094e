"""``query``, ``answer`` and ``check``: each builds the request of its use case, hands it to a
running ``citeloom serve`` when there is one, else runs it here, and prints the response:
its JSON, or its text (``render``), made here either way."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citeloom.domain.errors import ConfigError, ExitCode
from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K, QUERY_BOUNDS
from citeloom.domain.verdicts import Verdict
from citeloom.entrypoints.cli.base import (
    ConfigOpt,
    JsonOpt,
    LocalOpt,
    ProjectOpt,
    app,
    application,
    handed,
    handle_errors,
    print_json,
)
from citeloom.entrypoints.stdout import echo

if TYPE_CHECKING:
    from citeloom.services.application import Citeloom

CITATIONS_UNSUPPORTED = ExitCode.DOCUMENTS_FAILED  # check: a citation has a verdict of --fail-on


def _bounds(field: str) -> dict[str, int | None]:
    """A query option's bounds, the rule the request every door takes holds too."""
    low, high = QUERY_BOUNDS[field]
    return {"min": low, "max": high}


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
            **_bounds("top_k"),
            help=f"Passages to return at most [default: {DEFAULT_TOP_K}; with --budget, as "
            f"many as fit, up to {MAX_TOP_K}].",
            show_default=False,
        ),
    ] = None,
    per_doc: Annotated[
        int | None,
        typer.Option(
            "--per-doc",
            **_bounds("per_doc"),
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
            **_bounds("budget"),
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
    fields = {
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
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.query import QUERY, QueryRequest, QueryResponse

    response = handed(config, local, "/query", fields, QueryResponse)
    if response is None:
        request = build(QueryRequest, **fields)
        response = application(config).run(QUERY, request)
    if fmt is OutputFormat.json:
        print_json(response.dump())
    else:
        echo(render.QUERY_FORMATS[fmt.value](response))


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
    fields = {"project": project, "question": question}
    from citeloom.entrypoints import render
    from citeloom.services.usecases.answer import ANSWER, AnswerRequest, AnswerResponse
    from citeloom.services.usecases.base import build

    response = handed(config, local, "/answer", fields, AnswerResponse)
    if response is None:
        response = application(config).run(ANSWER, build(AnswerRequest, **fields))
    if fmt is AnswerFormat.json:
        print_json(response.dump())
    else:
        echo(render.ANSWER_FORMATS[fmt.value](response))


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
    drafts: Annotated[
        list[Path],
        typer.Argument(
            help="Markdown drafts with pandoc citations, or LaTeX files (one or more: a "
            "pre-commit hook passes every staged draft).",
            show_default=False,
        ),
    ],
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            "-p",
            help='Project id, a [project."ID"] table in the config. Default: the config\'s '
            "one project, when it has only one.",
        ),
    ] = None,
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
    the references file), not-ingested (in the library, no document), malformed (cannot be
    read as written: an unclosed bracket or \\cite, a page range that runs backwards; says
    the fix). Exit 1 when a citation has a verdict of --fail-on, 0 otherwise: usable in a
    writing pipeline or a pre-commit hook (.pre-commit-hooks.yaml: citeloom-check). A note
    names the version of record to cite instead of a preprint, a warning a retracted paper;
    neither changes the verdict.
    """
    if as_json and len(drafts) > 1:
        raise ConfigError(
            f"--json prints one draft's report, and {len(drafts)} drafts were given: check "
            "them one at a time, or leave out --json."
        )
    failing = _verdicts(fail_on)
    project = project or _only_project(config)
    app: list[Citeloom] = []  # made once, for the first draft not handed to a server
    passed = [_check_one(d, project, config, as_json, local, failing, app) for d in drafts]
    if not all(passed):
        raise typer.Exit(int(CITATIONS_UNSUPPORTED))


def _only_project(config: Path) -> str:
    """The config's one project: a hook over a thesis with one library needs no --project.
    With several, the usage error lists them."""
    from citeloom.config import load_settings

    projects = sorted(load_settings(config).project)
    if len(projects) != 1:
        raise ConfigError(
            f"{config} has {len(projects)} projects ({', '.join(projects) or 'none'}): name "
            "the one to check with --project NAME."
        )
    return projects[0]


def _check_one(
    draft: Path,
    project: str,
    config: Path,
    as_json: bool,
    local: bool,
    failing: frozenset[Verdict] | None,
    app: list[Citeloom],
) -> bool:
    """Check one draft and print its report; whether it passes. Whether it is read as LaTeX
    is the use case's to decide, by its name (``CheckRequest.latex``)."""
    try:
        text = draft.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"{draft}: cannot be read as a UTF-8 text draft ({error}). Pass a Markdown or "
            "LaTeX file."
        ) from error
    fields = {
        "project": project,
        "draft": text,
        "name": str(draft),
        "fail_on": sorted(failing) if failing is not None else None,
    }
    from citeloom.entrypoints import render
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.check import CHECK, CheckRequest, CheckResponse

    response = handed(config, local, "/check", fields, CheckResponse)
    if response is None:
        if not app:
            app.append(application(config))
        response = app[0].run(CHECK, build(CheckRequest, **fields))
    if as_json:
        print_json(response.dump())
    else:
        echo(render.check_text(response))
    return response.ok
