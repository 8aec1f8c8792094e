"""Human-readable output of the CLI (``--json`` bypasses all of this), each text made from the
response model of its use case (``services/usecases/``): the same whether the use case ran in
this process or in a ``citeloom serve`` it handed the request to (``handoff``). The parts the
TUI shows too (a byline, the PDF pages) are ``result_text``'s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citeloom.domain.citekeys import no_usable_key_label
from citeloom.domain.text import trim
from citeloom.entrypoints.result_text import byline, pdf_pages, quote_page
from citeloom.entrypoints.stdout import one_line

if TYPE_CHECKING:  # each command imports only the use case it runs
    from collections.abc import Callable

    from citeloom.entrypoints.mcp_views import McpCheckResponse
    from citeloom.services.ingest import DocumentOutcome
    from citeloom.services.usecases.answer import AnswerResponse
    from citeloom.services.usecases.audit import RunOut
    from citeloom.services.usecases.check import CheckResponse
    from citeloom.services.usecases.drop import DropResponse
    from citeloom.services.usecases.ingest import IngestResponse
    from citeloom.services.usecases.inspect import InspectResponse, RelationsResponse
    from citeloom.services.usecases.notes import NotesResponse
    from citeloom.services.usecases.query import QueryResponse
    from citeloom.services.usecases.reindex import ReindexResponse
    from citeloom.services.usecases.validate import ValidationResponse
    from citeloom.services.usecases.wire import PassageOut, ZoteroOut
    from citeloom.services.watch import WatchEvent


def _short(path: str) -> str:
    """A path as output lines name it: relative to the working folder where it is inside it,
    on one line whatever its name holds (``one_line``)."""
    try:
        return one_line(str(Path(path).resolve().relative_to(Path.cwd())))
    except ValueError:
        return one_line(path)


def document_line(doc: DocumentOutcome) -> str:
    name = _short(doc.path)
    if doc.status == "failed":  # the error names the file for the audit; the line does here
        error = (doc.error or "unknown error").removeprefix(doc.path + ": ")
        return f"failed    {name}: {one_line(error)}"
    ref = f"[@{doc.citekey}] ({doc.match})" if doc.citekey else _unlabelled(doc.item)
    pages = _pages(doc.pages, doc.printed_pages, doc.page_labels)
    line = f"{doc.status:<9} {name}  {ref}  {pages}  {_count(doc.chunks, 'chunk')}"
    changes = _index_changes(doc)
    return f"{line}  ({'; '.join(changes)})" if changes else line


def _unlabelled(item: str | None) -> str:
    """What a document without a citekey is cited by: its Zotero item, or nothing."""
    return no_usable_key_label(item) if item else "no reference match"


def _count(n: int | None, noun: str) -> str:
    """ "1 page", "2 pages"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _pages(count: int | None, printed: str | None, rule: str | None) -> str:
    """ "7 pages, printed pp. 272-278" where the printed pages are not the PDF's own."""
    if count is None:
        return "no pages"
    shown = _count(count, "page")
    if printed and rule not in (None, "pdf-page", "none") and printed != f"1-{count}":
        where = "p." if "-" not in printed else "pp."
        shown += f", printed {where} {printed}"
    return shown


def _index_changes(doc: DocumentOutcome) -> list[str]:
    """What the run changed in the index besides the document itself."""
    changes = [f"renamed from {_short(doc.renamed_from)}"] if doc.renamed_from else []
    if doc.copy_of:
        changes.append(f"same content as {_short(doc.copy_of)}, stored once")
    changes += [f"its earlier content stays stored as {_short(p)}" for p in doc.kept_as]
    changes += [f"removed a stale copy ({doc_id})" for doc_id in doc.removed_copies]
    return changes


def ingest_summary(report: IngestResponse) -> str:
    t = report.totals
    lines = [
        f"relabelled {_short(r.path)}: "
        f"{'@' + r.old if r.old else 'no match'} -> {'@' + r.new if r.new else 'no match'}"
        + (f" ({r.match})" if r.match else "")
        for r in report.relabelled
    ]
    lines += [f"pruned {_short(p)}: its file is gone" for p in report.pruned]
    lines += [
        f"not ingested {_short(a.path)} (Zotero {a.item_key}"
        + (f", @{a.citekey}" if a.citekey else "")
        + f"): {a.skipped}"
        for a in report.library_skipped
    ]
    if report.annotations:
        a = report.annotations
        lines.append(
            f"Zotero annotations: {a['total']} in the library, {a['stored']} stored, "
            f"{a['removed']} removed"
        )
    lines += [f"warning: {p.detail}. Fix: {p.fix}" for p in report.library_problems]
    lines += [
        f"warning: {_short(d.path)}: {d.pages_disagree}"
        for d in report.documents
        if d.pages_disagree
    ]
    if report.interrupted:
        left = _count(report.interrupted, "document")
        lines.append(f"interrupted: {left} left for the next run")
    if line := _relations_line(report):
        lines.append(line)
    lines += [
        f"{_count(t['documents'], 'document')}: {t['ingested']} ingested, {t['skipped']} "
        f"skipped, {t['failed']} failed; {_count(t['chunks'], 'chunk')} written to "
        f"'{report.collection}' "
        f"({report.embed_model})",
        f"correlation id: {report.correlation_id}",
        f"audit: {_short(report.audit)}",
    ]
    return "\n".join(lines)


def _relations_line(report: IngestResponse) -> str | None:
    """ "relations: 2 certain, 1 possible (citeloom inspect --relations -p P)"."""
    found = report.relations
    parts = [f"{found[k]} {k}" for k in ("certain", "possible") if found.get(k)]
    if found.get("preprint_pdfs"):
        parts.append(f"{_count(found['preprint_pdfs'], 'preprint PDF')} of a journal entry")
    if found.get("problems"):
        parts.append(f"{_count(found['problems'], 'problem')} in the relations file")
    if not parts:
        return None
    return f"relations: {', '.join(parts)} (citeloom inspect --relations -p {report.project})"


def _no_confident_answer(report: QueryResponse) -> str | None:
    if report.results and not report.answerable:
        return (
            f"No confident answer in project '{report.project}' (confidence "
            f"{report.confidence:.2f}); the nearest passages:"
        )
    return None


def _banner(banner: str | None, indent: str = "   ") -> list[str]:
    """The one-line banner of a result whose paper has versions, a retraction, errata or
    conflicts (``domain.relations``); nothing otherwise."""
    return [f"{indent}! {banner}"] if banner else []


def _in_zotero(links: ZoteroOut | None, indent: str = "   ") -> list[str]:
    """Where a result of a Zotero PDF opens in Zotero's reader, at its page (one line; the
    entry's zotero://select link is in --json); nothing for any other document."""
    return [f"{indent}in Zotero: {links.open_pdf}"] if links else []


def _named(p: PassageOut) -> str:
    return p.title or _short(p.source)


def query_text(report: QueryResponse) -> str:
    if report.note:
        return report.note
    if not report.results:
        return f"no passages found in project '{report.project}'"
    out = [line] if (line := _no_confident_answer(report)) else []
    for p in report.results:
        head = f"{p.rank}. {p.label}{pdf_pages(p)}  {_named(p)}"
        if who := byline(p):
            head += f" ({who})"
        if p.trimmed:
            head += " (trimmed to the budget)"
        out.append(head)
        out += _banner(p.banner)
        if p.section_path:
            out.append(f"   § {' > '.join(p.section_path)}")
        out += _in_zotero(p.zotero)
        out.append(f"   {trim(p.text, 400)}")
        out.append("")
    return "\n".join(out).rstrip()


def query_markdown(report: QueryResponse) -> str:
    """Passages as block quotes, each followed by its pandoc citation: paste into a draft."""
    if report.note:
        return f"> {report.note}"
    out = [f"## {report.query}", ""]
    if line := _no_confident_answer(report):
        out += [f"*{line}*", ""]
    for p in report.results:
        where = f" ({' > '.join(p.section_path)})" if p.section_path else ""
        out.append(f"**{p.rank}. {_named(p)}**{where}")
        out.append("")
        out.append(f"> {p.text}")
        out.append("")
        out.append(p.label)
        out.append("")
        if p.banner:
            out += [f"*! {p.banner}*", ""]
    return "\n".join(out).rstrip()


def query_context(report: QueryResponse) -> str:
    """A compact block for an LLM prompt: one labelled passage after another."""
    if report.note:
        return report.note
    out = []
    if not report.answerable and report.results:
        out.append("[note: these passages may not answer the question]")
    for p in report.results:
        where = f" § {' > '.join(p.section_path)}" if p.section_path else ""
        note = f"\n[note: {p.banner}]" if p.banner else ""
        out.append(f"{p.label}{where}{note}\n{p.text}")
    return "\n\n".join(out)


QUERY_FORMATS = {"text": query_text, "markdown": query_markdown, "context": query_context}


def answer_text(report: AnswerResponse) -> str:
    if report.note:
        return report.note
    if report.fallback:
        from citeloom.services.answer import NO_ANSWER

        out = [f"{NO_ANSWER} (confidence {report.confidence:.2f})"]
        if report.reason:
            out.append(report.reason)
        if report.leads:
            out += ["Leads, the nearest passages:", ""]
            for p in report.leads:
                out.append(f"{p.rank}. {p.label}{pdf_pages(p)}  {_named(p)}")
                out += _banner(p.banner)
                out.append(f"   {trim(p.text, 300)}")
        return "\n".join(out)
    out = []
    for s in report.citations:
        out.append(f'"{s.quote}" {s.label}{quote_page(s)}')
        out += _banner(s.banner)
        if s.section_path:
            out.append(f"   § {' > '.join(s.section_path)}")
        out += _in_zotero(s.zotero)
    out.append("")
    out.append(
        f"confidence {report.confidence:.2f}; each quote verified on its page of the stored text"
    )
    return "\n".join(out)


def answer_markdown(report: AnswerResponse) -> str:
    """A paste-ready quote per sentence with its pandoc citation."""
    if report.note:
        return f"> {report.note}"
    if report.fallback:
        from citeloom.services.answer import NO_ANSWER

        reason = f" {report.reason}" if report.reason else ""
        lines = [f"*{NO_ANSWER}*{reason} Leads:", ""]
        lines += [f"- {p.label} {trim(p.text, 200)}" for p in report.leads or []]
        return "\n".join(lines)
    return "\n\n".join(
        f'> "{s.quote}" {s.label}' + (f"\n\n*! {s.banner}*" if s.banner else "")
        for s in report.citations
    )


ANSWER_FORMATS = {"text": answer_text, "markdown": answer_markdown}


def check_text(report: CheckResponse) -> str:
    """One block per citation: where, verdict, what to do, the evidence quote with its page."""
    out = []
    for c in report.citations:
        where = f"{report.draft or 'draft'}:{c.line}:{c.column}"
        key = f"@{c.citekey}" if c.citekey else "(no key)"  # a malformed \cite[p.~4]
        head = f"{where}  {c.verdict:<12} {key}"
        if c.locator:
            head += f" ({c.locator})"
        if c.suggested_page is not None:
            head += f" -> p. {c.suggested_page}"
        out.append(head)
        out += [f"   {n.severity}: {n.message}" for n in c.notes]
        out.append(f"   claim: {trim(c.sentence, 200)}")
        if c.message and c.verdict != "not-found":
            out.append(f"   {c.message}")
        if c.evidence is not None and c.verdict in SHOWN_EVIDENCE:
            quote = f'"{trim(c.evidence.quote, 300)}" {c.evidence.label}'
            out.append(f"   {quote}{quote_page(c.evidence)}")
            out += _in_zotero(c.evidence.zotero)
        for s in c.elsewhere:
            out.append(f'   supported elsewhere: "{trim(s.quote, 200)}" {s.label}')
    counts = ", ".join(f"{n} {v}" for v, n in report.counts.items() if n)
    summary = f"{_count(len(report.citations), 'citation')}: {counts or 'none found'}"
    if report.citations:
        failing = report.failing
        summary += f"; {failing} failing" if failing else "; none failing"
    notes = [n for c in report.citations for n in c.notes]
    if notes:
        warnings = sum(n.severity == "warning" for n in notes)
        about = [_count(warnings, "warning")] if warnings else []
        if len(notes) > warnings:
            about.append(_count(len(notes) - warnings, "note"))
        summary += f"; {' and '.join(about)} about the cited papers"
    out.append(summary)
    return "\n".join(out)


# a not-found verdict's best sentence does not state the claim: it is not shown as evidence
SHOWN_EVIDENCE = ("supported", "mismatch", "unconfirmed", "other-page", "no-page", "no-such-page")


def validation_text(report: ValidationResponse) -> str:
    lines = []
    for check in report.checks:
        mark = "FAIL" if not check.ok else "warn" if check.warning else "ok  "
        lines.append(f"{mark} {check.check}: {check.detail}")
        if (not check.ok or check.warning) and check.fix:
            lines.append(f"     fix: {check.fix}")
    warned = f" ({report.warnings} warning{'s' if report.warnings > 1 else ''})"
    passed = "all checks passed" + (warned if report.warnings else "")
    lines.append(passed if report.ok else "some checks failed")
    return "\n".join(lines)


def inspect_text(report: InspectResponse) -> str:
    if not report.exists:
        return (
            f"project '{report.project}': collection '{report.collection}' does not exist yet. "
            f"Run: citeloom ingest --project {report.project}"
        )
    lines = [
        f"project '{report.project}': collection '{report.collection}', "
        f"{_count(report.points, 'point')}, {_count(len(report.documents), 'document')}, "
        f"{report.embed_model} ({report.dimensions} dimensions)",
    ]
    for d in report.documents:
        ref = f"@{d.citekey} ({d.match})" if d.citekey else _unlabelled(d.item)
        if d.kind == "note":
            ref = f"note on {ref}" if d.citekey else "note"
        pages = _pages(d.page_count, d.printed_pages, d.page_labels)
        if d.page_labels is not None:
            pages += f" (labels: {d.page_labels})"
        chunks = _count(d.chunks, "chunk")
        if not d.complete:
            chunks = f"{d.chunks} of {d.chunk_total} chunks (INCOMPLETE)"
        lines.append(f"  {d.doc_id}  {_short(d.path)}  {ref}  {pages}  {chunks}")
        if d.pages_disagree is not None:
            lines.append(f"      pages: {d.pages_disagree}")
        if not d.citekey and d.detail:
            lines.append(f"      {d.detail}")
        elif not d.citekey and d.candidates:
            best = ", ".join(f"@{c.citekey} {c.score:.2f}" for c in d.candidates)
            lines.append(f"      {d.problem or 'unmatched'}; best candidates: {best}")
    if report.incomplete:
        lines.append(
            f"{_count(report.incomplete, 'document')} stored only in part (a run was "
            f"killed while writing them); fix: {report.fix}"
        )
    return "\n".join(lines)


def relations_text(report: RelationsResponse) -> str:
    """Every relation with its evidence: certain ones (applied) first, then possible ones
    (never applied) with the lines that confirm or silence each in the relations file."""
    from citeloom.domain.relations.model import relation_phrase

    lines = [
        f"project '{report.project}': {_count(report.certain, 'certain relation')}, "
        f"{report.possible} possible, from {', '.join(_short(s) for s in report.sources)}"
    ]
    for r in report.relations:
        said = relation_phrase(r.source, r.kind, r.target)
        lines.append(f"{r.certainty:<9} {said}  ({r.origin})")
        lines.append(f"          {r.evidence}")
        if r.certainty == "possible" and r.kind == "version_of" and r.target:
            lines.append(
                f'          confirm: [[version_of]] version = "{r.source}" record = '
                f'"{r.target}"; or silence: [[distinct]] citekeys = ["{r.source}", '
                f'"{r.target}"] (each with a reason)'
            )
    for p in report.preprint_pdfs:
        lines.append(f"preprint  {_short(p.path)} (@{p.citekey}): {p.evidence}")
    for problem in report.problems:
        lines.append(f"problem   {problem}")
    if not report.relations and not report.preprint_pdfs:
        lines.append("no relations: every entry is a work of its own")
    return "\n".join(lines)


def notes_text(listed: NotesResponse) -> str:
    if not listed.notes:
        return f"project '{listed.project}' has no notes"
    lines = []
    for n in listed.notes:
        on = f"@{n.citekey}" if n.citekey else "no paper"
        where = f", p. {n.page}" if n.page is not None else ""
        tags = f"  [{', '.join(n.tags)}]" if n.tags else ""
        lines.append(f"{n.doc_id}  note on {on}{where}{tags}  {trim(n.text, 80)}")
    return "\n".join(lines)


def drop_question(plan: DropResponse, where: str) -> str:
    """What ``citeloom drop`` asks before it removes anything."""
    held = f"{plan.points} chunks of {plan.documents} documents" if plan.current else "no chunks"
    leftovers = f", and leftovers {', '.join(plan.leftovers)}" if plan.leftovers else ""
    return (
        f"Remove collection '{plan.collection}' of project '{plan.project}' ({held}){leftovers} "
        f"from {where}? This cannot be undone."
    )


def _counts(run: RunOut) -> str:
    return ", ".join(f"{n} {s}" for s, n in sorted(run.documents.items())) or "no documents"


def run_line(run: RunOut) -> str:
    """One run in `citeloom audit list`."""
    return f"{run.correlation_id}  {run.project}  {_counts(run)}  {run.outcome}"


def run_text(run: RunOut) -> str:
    counts = _counts(run)
    lines = [
        f"run {run.correlation_id}: {run.outcome}",
        f"  project '{run.project}', collection '{run.collection}', {run.embed_model}",
        f"  started {run.started}, finished {run.finished or '-'}",
        f"  inputs: {', '.join(run.inputs)}",
        f"  documents: {counts} ({run.document_seconds:.1f} s of document work)",
    ]
    lines += [f"  failed: {f['error']}" for f in run.failures]
    lines += [f"  unmatched: {u}" for u in run.unmatched]
    lines += [f"  OCR: {o}" for o in run.ocr]
    lines += [f"  relabelled {r['path']}: {r['old']} -> {r['new']}" for r in run.relabelled]
    lines += [f"  pruned: {p}" for p in run.pruned]
    return "\n".join(lines)


def reindex_text(report: ReindexResponse, project: str, config: Path) -> str:
    if report.switched and not report.embedded:
        return (
            f"rebuilt the BM25 vectors of {report.chunks} chunks ({report.documents} documents) "
            f"for {', '.join(report.languages)} (was {', '.join(report.old_languages)}), "
            f"without re-embedding; '{report.collection}' now uses them.\n"
            f"correlation id: {report.correlation_id}"
        )
    if report.switched:
        return (
            f"reindexed {report.documents} documents ({report.chunks} chunks) with "
            f"{report.new_model}; '{report.collection}' now uses it (was {report.old_model}).\n"
            f'Now set embedding_model = "{report.new_model}" in [project."{project}"] of '
            f"{config}.\ncorrelation id: {report.correlation_id}"
        )
    lines = [f"failed    {failure}" for failure in report.failures]
    lines.append(
        f"reindex not switched: {len(report.failures)} documents failed; "
        f"'{report.collection}' still uses {report.old_model}."
    )
    return "\n".join(lines)


def mcp_check_text(report: McpCheckResponse) -> str:
    """``citeloom mcp --check``: the tools, the projects and how long each model took."""
    lines = [f"tools ({len(report.tools)}): " + ", ".join(t.name for t in report.tools)]
    for p in report.projects:
        lines.append(
            f"project {p.project}: {p.documents} documents, {p.chunks} chunks, "
            f"model {p.embedding_model} (collection {p.collection})"
        )
    lines += [f"model {m.model}: loaded in {m.load_s:.2f} s" for m in report.models]
    lines += [f"error: {e.dump()}" for e in report.errors]
    return "\n".join(lines)


class WatchStatus:
    """What ``watch`` shows: one status line in a terminal, rewritten in place; a line per
    event elsewhere; one JSON object per line with ``--json``. ``stderr_json``
    (``--progress json`` without ``--json``): the events as JSON on stderr instead of text,
    since every line there is then one JSON object."""

    def __init__(self, as_json: bool, stderr_json: bool = False) -> None:
        import sys

        self.as_json = as_json
        self.stderr_json = stderr_json and not as_json
        self.tty = sys.stderr.isatty() and not as_json and not self.stderr_json
        self.last = ""

    def show(self, event: WatchEvent) -> None:
        self._event(event.to_json(), lambda: _watch_text(event))

    def waiting(self, message: str) -> None:
        """The index is held by another process: said, also in JSON."""
        self._event({"event": "waiting", "message": message}, lambda: message)

    def _event(self, data: dict, text: Callable[[], str]) -> None:
        if self.as_json:
            _json_line(data)
        elif self.stderr_json:
            from citeloom.entrypoints.progress import json_event

            json_event(data)
        else:
            self._line(text())

    def _line(self, text: str) -> None:
        from citeloom.entrypoints.stdout import echo_err

        if self.tty:
            import sys

            sys.stderr.write("\r\x1b[2K" + text[:200])
            sys.stderr.flush()
        else:
            echo_err(text)
        self.last = text

    def close(self) -> None:
        if self.tty and self.last:
            import sys

            sys.stderr.write("\n")


def _json_line(data: dict) -> None:
    """One object per line, ASCII only (every other character escaped: terminal-safe)."""
    import json

    from citeloom.entrypoints.stdout import echo

    echo(json.dumps(data))


def _watch_text(event: WatchEvent) -> str:
    data = event.data
    if event.event == "watching":
        return f"watching {', '.join(_short(r) for r in data['roots'])} for '{data['project']}'"
    if event.event == "changes":
        return f"{_count(data['count'], 'change')} settled: ingesting"
    if event.event == "run":
        t = data["totals"]
        parts = [f"{t['ingested']} ingested", f"{t['skipped']} unchanged", f"{t['failed']} failed"]
        if data["relabelled"]:
            parts.append(f"{data['relabelled']} relabelled")
        if data["pruned"]:
            parts.append(f"{len(data['pruned'])} pruned")
        if data["interrupted"]:
            parts.append(f"{data['interrupted']} left for the next run")
        return f"run {data['correlation_id']}: {', '.join(parts)}; watching"
    if event.event == "error":
        return f"error: {data['error']} (retried {data['retry']})"
    return f"stopped after {_count(data['runs'], 'run')}"
