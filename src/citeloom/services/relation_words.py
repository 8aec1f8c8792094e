"""Relations between entries in words for people: the one-line banner of a result whose paper
has other versions, a retraction, errata or conflicts, and the sentence of each note ``check``
adds about a cited paper. The domain says what holds (``domain.relations``); every door words
it here, the same in text, --json, HTTP, MCP and the TUI."""

from __future__ import annotations

from citeloom.domain.relations import CitationNote, WorkFlags

_RELATED = {
    "erratum_of": "an erratum of",
    "has_erratum": "has an erratum:",
    "reply_to": "a reply to",
    "has_reply": "has a reply or comment:",
    "retraction_notice": "retracted by the notice",
}


def banner(flags: WorkFlags) -> str | None:
    """One line for text output; None when there is nothing to say."""
    parts = []
    if flags.retracted:
        parts.append(f"RETRACTED ({flags.retraction})" if flags.retraction else "RETRACTED")
    if flags.superseded_by:
        record = " (the version of record)" if flags.superseded_by == flags.record else ""
        parts.append(f"superseded by @{flags.superseded_by}{record}")
    others = [v.citekey for v in flags.versions if v.citekey != flags.superseded_by]
    if others:
        record = " (this is the version of record)" if flags.record == flags.citekey else ""
        parts.append(f"also in the library as {', '.join('@' + k for k in others)}{record}")
    elif flags.versions and flags.record == flags.citekey:
        parts.append("the version of record")
    if flags.preprint_pdf:
        parts.append(f"this PDF is a preprint, not the version of record ({flags.preprint_pdf})")
    for c in flags.conflicts_with:
        parts.append(f"conflicts with @{c.citekey}: {c.reason}")
    for r in flags.related:
        parts.append(f"{_RELATED.get(r.relation, r.relation)} @{r.citekey}")
    return "; ".join(parts) or None


def note_message(note: CitationNote) -> str:
    """What to know about the cited paper, and what to do about it."""
    key = note.paper
    if note.kind == "retracted":
        return f"@{key} is retracted ({note.evidence}): do not rest a claim on it"
    if note.kind == "superseded":
        record = " (the version of record)" if note.record else ""
        # the first piece of evidence is enough here; inspect --relations lists all of it
        why = f" ({note.evidence.split('; ')[0]})" if note.evidence else ""
        return f"@{key} is superseded by @{note.citekey}{record}: cite @{note.citekey}{why}"
    if note.kind == "erratum":
        return f"@{key} has an erratum in the library, @{note.citekey}: check the claim against it"
    if note.kind == "conflict":
        return f"@{key} conflicts with @{note.citekey}: {note.evidence}"
    return (
        f"the stored PDF of @{key} is a preprint ({note.evidence}): its wording and pages may "
        "differ from the version of record"
    )
