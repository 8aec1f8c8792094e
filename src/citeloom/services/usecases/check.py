"""check: each citation of a draft checked against the page it cites, with a verdict, what
differs and the sentence the verdict rests on.

How a draft's citations are read (Markdown or LaTeX, where ``%`` starts a comment) is decided
here once, for the CLI, HTTP and MCP alike (``CheckRequest.latex``): the format asked for;
else LaTeX when the draft's name ends in .tex, .latex or .ltx; else the text decides (LaTeX
when it holds \\documentclass, \\begin{document} or a \\cite command).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

from pydantic import Field, ValidationInfo, field_validator

from citeloom.domain.verdicts import VERDICTS, Verdict
from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.wire import CitationOut, RelationFlags, flag_fields

if TYPE_CHECKING:
    from citeloom.domain.relations import CitationNote
    from citeloom.services.check import CheckReport, CitationCheck
    from citeloom.services.deadline import Deadline
    from citeloom.services.evidence import Support
    from citeloom.services.usecases.dependencies import Dependencies

LATEX_SUFFIXES = (".tex", ".latex", ".ltx")


class CheckRequest(Request):
    name: str = Field(
        "draft",
        description="Shown in the report, e.g. the file name; a name ending in .tex, .latex or "
        ".ltx is read as LaTeX.",
    )
    draft: str = Field(
        description="The draft's text: Markdown citing with pandoc ([@key, p. 12]) or LaTeX "
        "(\\cite[p.~12]{key}), the pages as printed in the journal."
    )
    format: Literal["auto", "markdown", "latex"] = Field(
        "auto",
        description="How to read the citations; auto: LaTeX when name ends in .tex, .latex or "
        ".ltx, else LaTeX when the text holds \\documentclass, \\begin{document} or a \\cite "
        "command, else Markdown.",
    )
    fail_on: list[Verdict] | None = Field(
        None,
        description="The verdicts that make the check fail (ok false); default: the "
        "project's [check] fail_on.",
    )

    @field_validator("draft")
    @classmethod
    def _a_draft(cls, text: str, info: ValidationInfo) -> str:
        if not text.strip():
            raise ValueError(
                f"{info.data.get('name') or 'the draft'} is empty: there is nothing to check. "
                "Pass a Markdown draft citing [@key, p. 12], or LaTeX citing \\cite[p.~12]{key}."
            )
        return text

    @property
    def latex(self) -> bool:
        """Whether the draft is read as LaTeX: the one rule, the same at every entry point."""
        if self.format != "auto":
            return self.format == "latex"
        if PurePath(self.name).suffix.lower() in LATEX_SUFFIXES:
            return True
        from citeloom.domain.draft_citations import is_latex

        return is_latex(self.draft)

    @property
    def failing(self) -> frozenset[Verdict] | None:
        return frozenset(self.fail_on) if self.fail_on is not None else None


class EvidenceOut(CitationOut):
    score: float = Field(description="0 to 1: how closely the sentence states the claim.")

    @classmethod
    def of(cls, s: Support) -> EvidenceOut:
        out: EvidenceOut = cls.from_support(s, score=round(s.score, 3))
        return out


class DifferenceOut(Response):
    kind: Literal["number", "unit", "negation", "direction", "term"] = Field(
        description="What differs between the draft's claim and the page."
    )
    draft: str = Field(description="What the draft says: '12 sites'.")
    page: str = Field(description="What the page says: '8 sites'; empty when not stated.")


class CheckNoteOut(Response):
    severity: Literal["note", "warning"] = Field(
        description="warning: the cited paper is retracted; note: anything else worth knowing."
    )
    message: str = Field(description="What to know, and what to do about it.")
    citekey: str | None = Field(
        description="The entry the note is about: the version to cite instead, the erratum, "
        "the conflicting paper, the retraction notice."
    )

    @classmethod
    def of(cls, note: CitationNote) -> CheckNoteOut:
        from citeloom.services.relation_words import note_message

        return cls(severity=note.severity, message=note_message(note), citekey=note.citekey)


class CitationCheckOut(RelationFlags):
    citekey: str = Field(
        description="The key the draft cites; empty for a malformed citation that names none."
    )
    pages: list[str] = Field(description="The printed pages the citation names: ['273'].")
    line: int = Field(description="Line of the citation in the draft (1-based).")
    column: int = Field(description="Column of the citation on that line (1-based).")
    sentence: str = Field(description="The citing sentence, citations and markup taken out.")
    citation: str = Field(description="The citation as written in the draft.")
    locator: str = Field(description="The citation's locator as written: 'p. 118'.")
    verdict: Verdict = Field(description="supported, or what is wrong (the README lists each).")
    message: str = Field(description="What is wrong and what to do; empty when supported.")
    suggested_page: str | None = Field(description="The printed page to cite instead.")
    suggested_pdf_page: int | None = Field(
        description="The PDF page (1-based) of suggested_page, for opening the file."
    )
    differences: list[DifferenceOut] = Field(
        description="mismatch: what the draft states differently from the page."
    )
    printed_range: str | None = Field(description="no-such-page: the paper's printed pages.")
    evidence: EvidenceOut | None = Field(
        description="The paper's sentence the verdict rests on, if any."
    )
    elsewhere: list[EvidenceOut] = Field(
        description="not-found: sentences of other papers of the project that state the "
        "claim; unconfirmed: the sentence of another page of the cited paper that states it."
    )
    notes: list[CheckNoteOut] = Field(
        description="About the cited paper, not the claim (the verdict is the same without "
        "them): a version of record to cite instead, a retraction, an erratum, a conflict."
    )

    @classmethod
    def of(cls, c: CitationCheck) -> CitationCheckOut:
        cited = c.citation
        return cls(
            citekey=cited.citekey,
            pages=list(cited.pages),
            line=cited.line,
            column=cited.column,
            sentence=cited.sentence,
            citation=cited.raw,
            locator=cited.locator,
            verdict=c.verdict,
            message=c.message,
            suggested_page=c.suggested_page,
            suggested_pdf_page=c.evidence.page if c.evidence and c.suggested_page else None,
            differences=[
                DifferenceOut(kind=d.kind, draft=d.draft, page=d.page) for d in c.differences
            ],
            printed_range=c.printed_range,
            evidence=EvidenceOut.of(c.evidence) if c.evidence else None,
            elsewhere=[EvidenceOut.of(s) for s in c.elsewhere],
            notes=[CheckNoteOut.of(n) for n in c.notes],
            **flag_fields(c.flags),
        )


class CheckResponse(Response):
    draft: str = Field(description="The draft's name, as sent.")
    project: str = Field(description="The project checked against.")
    ok: bool = Field(
        description="No citation has a verdict of fail_on (the CLI exits 0; 1 otherwise)."
    )
    fail_on: list[Verdict] = Field(description="The verdicts this check fails on.")
    counts: dict[str, int] = Field(description="Citations per verdict, every verdict named.")
    citations: list[CitationCheckOut] = Field(description="One per citation, in draft order.")

    @classmethod
    def from_report(cls, report: CheckReport) -> CheckResponse:
        return cls(
            draft=report.draft,
            project=report.project,
            ok=report.ok,
            fail_on=[v for v in VERDICTS if v in report.fail_on],
            counts=report.counts,
            citations=[CitationCheckOut.of(c) for c in report.checks],
        )

    @property
    def failing(self) -> int:
        """How many citations have a verdict the check fails on."""
        return sum(c.verdict in self.fail_on for c in self.citations)


def check(deps: Dependencies, request: CheckRequest, deadline: Deadline | None) -> CheckResponse:
    """The index is held a citation at a time: between two, a server lets a process that
    waits for the index have it, and stops when time is up."""
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import CALL_S

    embedder = deps.embedder(request.project)
    evidence = deps.evidence(request.project)
    deadline = deadline or Deadline(CALL_S)
    with deps.index(deadline, request.project) as index:
        service = deps.builders.check_service(request.project, index, embedder, evidence)
        between = deps.holding.between(index, deadline)
        report = service.check(
            request.draft, request.name, request.latex, between, fail_on=request.failing
        )
    return CheckResponse.from_report(report)


CHECK = UseCase("check", CheckRequest, CheckResponse, check)
