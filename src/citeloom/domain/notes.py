"""A note: text a person or an agent keeps citable beside the papers, never a paper's words.

A note is stored as a small document of its own (``note:<doc id>``), chunked and embedded like
a paper, and labelled ``[note on @key, p. 2]`` wherever it is shown. ``answer`` and ``check``
never quote it as evidence. Its own fields (text, page, tags, citekey) live in the payload of
its first chunk, not in the conversion cache of the papers, so relabelling and reindex rebuild
it from the index alone, on any machine an export moved it to.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citeloom.domain.ids import doc_id_from_sha256
from citeloom.domain.models import Block, BlockKind, ConvertedDocument, MetadataMatch, Reference

NOTE_SCHEME = "note:"  # the stored path of a note: note:<doc id>; no file, never pruned
ANNOTATION = "annotation"  # the kind of a note mirrored from a Zotero PDF annotation
NOTE_FIELD = "note"  # payload key of the first chunk of a note: its NoteItem, as given

# What a note may hold: everything stored must render in every output, forever (a page of
# 10^20 once made a project's queries fail until the note could be removed).
MAX_NOTE_CHARS = 100_000
MAX_PAGE = 100_000  # no printed book has more pages
MAX_FIELD_CHARS = 500  # a title, a section, a citekey
MAX_TAGS = 50
MAX_TAG_CHARS = 100


def is_note_path(path: str) -> bool:
    return path.startswith(NOTE_SCHEME)


@dataclass(frozen=True)
class NoteItem:
    text: str
    citekey: str | None = None
    title: str | None = None
    section: str | None = None
    page: int | None = None
    tags: tuple[str, ...] = ()
    # "annotation": a highlight or comment made in Zotero's PDF reader, mirrored from the
    # library (it comes and goes with the library, and is labelled as an annotation)
    kind: str = "note"

    @property
    def is_annotation(self) -> bool:
        return self.kind == ANNOTATION

    @property
    def sha256(self) -> str:
        """A note's identity is its content: storing the same note twice changes nothing."""
        fields: list[Any] = [
            self.text,
            self.citekey,
            self.title,
            self.section,
            self.page,
            list(self.tags),
        ]
        if self.kind != "note":  # a plain note keeps the identity it always had
            fields.append(self.kind)
        return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode()).hexdigest()

    @property
    def doc_id(self) -> str:
        return doc_id_from_sha256(self.sha256)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "citekey": self.citekey,
            "title": self.title,
            "section": self.section,
            "page": self.page,
            "tags": list(self.tags),
            **({"kind": self.kind} if self.kind != "note" else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NoteItem:
        return cls(
            text=str(data["text"]),
            citekey=data.get("citekey"),
            title=data.get("title"),
            section=data.get("section"),
            page=data.get("page"),
            tags=tuple(data.get("tags") or ()),
            kind=str(data.get("kind") or "note"),
        )

    def problems(self) -> list[str]:
        """What about this note cannot be stored, each as "field: what to do" (none: it can)."""
        out = []
        if not self.text.strip():
            out.append("text is empty: give the text to keep.")
        elif len(self.text) > MAX_NOTE_CHARS:
            out.append(
                f"text has {len(self.text)} characters; at most {MAX_NOTE_CHARS} per item. "
                "Split it into several items."
            )
        if self.page is not None and (
            isinstance(self.page, bool)
            or not isinstance(self.page, int)
            or not 1 <= self.page <= MAX_PAGE
        ):
            out.append(f"page {self.page!r}: give a page number from 1 to {MAX_PAGE}.")
        for name in ("citekey", "title", "section"):
            value = getattr(self, name)
            if value is not None and (not str(value).strip() or len(str(value)) > MAX_FIELD_CHARS):
                out.append(f"{name}: give 1 to {MAX_FIELD_CHARS} characters, or leave it out.")
        if len(self.tags) > MAX_TAGS:
            out.append(f"tags: {len(self.tags)} given; at most {MAX_TAGS}.")
        for tag in self.tags:
            if not tag.strip() or len(tag) > MAX_TAG_CHARS or any(ord(c) < 32 for c in tag):
                out.append(
                    f"tags: {tag[:40]!r} is not a tag; give 1 to {MAX_TAG_CHARS} printable "
                    "characters."
                )
                break
        return out

    def document(self, title: str | None = None) -> ConvertedDocument:
        """The note as a converted document: its section heading (if any), then its text,
        on its page."""
        blocks = []
        if self.section:
            blocks.append(Block(self.section, BlockKind.HEADING, self.page, 1))
        blocks.append(Block(self.text, BlockKind.TEXT, self.page))
        return ConvertedDocument(
            source_path=f"{NOTE_SCHEME}{self.doc_id}",
            sha256=self.sha256,
            title=self.title or title,
            page_count=None,
            blocks=tuple(blocks),
            converter="note",
        )

    def match(self, references: Mapping[str, Reference]) -> MetadataMatch:
        """The note's own citekey while the library has it (the "hint" match, as --citekey
        gives a file), else no match: a note is never matched by guessing from its text."""
        reference = references.get(self.citekey) if self.citekey else None
        if reference is not None:
            return MetadataMatch(reference, "hint", 1.0)
        return MetadataMatch(None, None, problem="MetadataMissing")
