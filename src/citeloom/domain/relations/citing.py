"""What ``check`` says about citing a paper, beside its verdict on the claim: a retraction, a
version of record to cite instead, an erratum, a conflict, a preprint PDF. The domain decides
which notes a paper's flags call for and how grave each is; the renderers word them
(``services.relation_words``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citeloom.domain.relations.graph import WorkFlags

NoteKind = Literal["retracted", "superseded", "erratum", "conflict", "preprint"]


@dataclass(frozen=True)
class CitationNote:
    """Something to know about a cited paper (``paper``), beside the verdict on the claim.

    ``citekey``: the entry the note points at (the retraction notice, the version to cite
    instead, the erratum, the conflicting paper); ``evidence``: what it rests on (the
    retraction's, the supersession's, the conflict's reason, why the PDF is a preprint);
    ``record``: ``citekey`` is the work's version of record."""

    severity: Literal["note", "warning"]
    kind: NoteKind
    paper: str
    citekey: str | None = None
    evidence: str | None = None
    record: bool = False


def citation_notes(flags: WorkFlags) -> list[CitationNote]:
    """What ``check`` says about citing a paper with these flags: a retraction is a warning;
    a version of record to cite instead, an erratum, a conflict or a preprint PDF a note.
    None of them changes the verdict about the claim."""
    key = flags.citekey
    if not key:
        return []
    notes = []
    if flags.retracted:
        notice = next((r.citekey for r in flags.related if r.relation == "retraction_notice"), None)
        notes.append(CitationNote("warning", "retracted", key, notice, flags.retraction))
    if flags.superseded_by:
        record = flags.superseded_by == flags.record
        notes.append(
            CitationNote(
                "note", "superseded", key, flags.superseded_by, flags.superseded_why, record
            )
        )
    for r in flags.related:
        if r.relation == "has_erratum":
            notes.append(CitationNote("note", "erratum", key, r.citekey))
    for c in flags.conflicts_with:
        notes.append(CitationNote("note", "conflict", key, c.citekey, c.reason))
    if flags.preprint_pdf:
        notes.append(CitationNote("note", "preprint", key, evidence=flags.preprint_pdf))
    return notes
