"""A Zotero data directory as a project's library: exact matches for its attachments.

A file Zotero holds as an attachment is labelled with its entry (``match: "zotero"``), never
guessed; any other file (a folder of PDFs ingested beside the library) is matched as a
CSL-JSON library would match it, DOI first, against the same entries. With a
``references_json`` too, its entries that Zotero lacks join them, and ``disagreements`` says
where the two describe one citekey differently.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from citeloom.adapters.csl_references import CslMetadataResolver
from citeloom.adapters.zotero.database import BBT_DATABASE, DATABASE, ZoteroLibrary, read_library
from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.models import ConvertedDocument, MetadataMatch, Reference
from citeloom.domain.notes import NoteItem
from citeloom.domain.text import fold_for_match


class _Listed(CslMetadataResolver):
    """The CSL-JSON matcher (DOI, arXiv id, title) over entries already read."""

    def __init__(self, refs: list[Reference], threshold: float, margin: float) -> None:
        super().__init__(Path(), threshold, margin)
        self._refs = refs
        self._fingerprint = ""


class ZoteroMetadataResolver:
    def __init__(
        self,
        data_dir: Path,
        base_dir: Path | None = None,
        references_json: Path | None = None,
        threshold: float = 0.8,
        margin: float = 0.05,
        cache_dir: Path | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.base_dir = base_dir
        self.csl = (
            CslMetadataResolver(references_json, threshold, margin, cache_dir)
            if references_json
            else None
        )
        self.threshold = threshold
        self.margin = margin
        self._library: ZoteroLibrary | None = None
        self._refs: list[Reference] = []
        self._by_path: dict[str, LibraryAttachment] = {}
        self._fallback: _Listed | None = None

    # ------------------------------------------------------------------ reading
    def library(self) -> ZoteroLibrary:
        if self._library is None:
            library = read_library(self.data_dir, self.base_dir)
            refs = list(library.references)
            if self.csl is not None:
                # a key Zotero items share is nobody's: no entry of the file takes it either
                known = {r.citekey for r in refs} | library.shared
                refs += [r for r in self.csl.references() if r.citekey not in known]
            self._refs = refs
            self._by_path = {}
            for attachment in library.attachments:
                self._by_path[attachment.path] = attachment
                self._by_path.setdefault(os.path.realpath(attachment.path), attachment)
            self._fallback = _Listed(refs, self.threshold, self.margin)
            self._library = library
        return self._library

    def reload(self) -> None:
        """Read the library again at the next use (``watch``: Zotero changed it)."""
        self._library = None
        if self.csl is not None:
            self.csl = CslMetadataResolver(
                self.csl.path, self.threshold, self.margin, self.csl.cache_dir
            )

    # ------------------------------------------------------------------ MetadataResolver
    def references(self) -> list[Reference]:
        self.library()
        return self._refs

    @property
    def fingerprint(self) -> str:
        own = self.library().fingerprint
        if self.csl is None:
            return own
        return hashlib.sha256(f"{own}+{self.csl.fingerprint}".encode()).hexdigest()[:16]

    @property
    def format_name(self) -> str:
        return "Zotero"

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch:
        self.library()
        attachment = self._by_path.get(document.source_path) or self._by_path.get(
            os.path.realpath(document.source_path)
        )
        if attachment is None:
            assert self._fallback is not None
            return self._fallback.resolve(document, hint)
        by_key = {r.citekey: r for r in self._refs}
        if attachment.citekey is not None and attachment.citekey in by_key:
            return MetadataMatch(by_key[attachment.citekey], "zotero", 1.0, item=attachment.item)
        if attachment.parent_key is None:
            detail = (
                f"a standalone attachment in Zotero ({attachment.item_key}): create a parent "
                "item for it in Zotero (right-click > Create Parent Item)"
            )
        else:
            detail = attachment.no_key or f"Zotero item {attachment.parent_key} has no citekey"
        return MetadataMatch(
            None, None, problem="MetadataMissing", detail=detail, item=attachment.item
        )

    # ------------------------------------------------------------------ LibraryFiles
    @property
    def root(self) -> Path:
        return self.data_dir

    def attachments(self) -> list[LibraryAttachment]:
        return list(self.library().attachments)

    def annotations(self) -> list[NoteItem]:
        return list(self.library().annotations)

    def watched(self) -> list[Path]:
        files = [
            self.data_dir / f"{name}{suffix}"
            for name in (DATABASE, BBT_DATABASE)
            for suffix in ("", "-wal", "-journal")
        ]
        if self.csl is not None:
            files.append(self.csl.path)
        return files

    # ------------------------------------------------------------------ validate
    def without_key(self) -> list[str]:
        return list(self.library().without_key)

    def problems(self) -> list[LibraryProblem]:
        """The library's key problems (shared keys, keyless items), and those of the
        references file's own entries."""
        own = list(self.library().problems)
        return own + (self.csl.problems() if self.csl is not None else [])

    def disagreements(self) -> list[str]:
        """Entries of one citekey that Zotero and the references file describe differently."""
        if self.csl is None:
            return []
        ours = {r.citekey: r for r in self.library().references}
        out = []
        for theirs in self.csl.references():
            mine = ours.get(theirs.citekey)
            if mine is None:
                continue
            differ = []
            if fold_for_match(mine.title) != fold_for_match(theirs.title):
                differ.append(f"title {mine.title!r} / {theirs.title!r}")
            if mine.year != theirs.year:
                differ.append(f"year {mine.year} / {theirs.year}")
            if (mine.doi or None) != (theirs.doi or None):
                differ.append(f"DOI {mine.doi} / {theirs.doi}")
            if mine.family_names[:1] != theirs.family_names[:1]:
                differ.append(
                    f"first author {next(iter(mine.family_names), None)} / "
                    f"{next(iter(theirs.family_names), None)}"
                )
            if differ:
                out.append(f"{theirs.citekey}: {'; '.join(differ)} (Zotero / {self.csl.path.name})")
        return out
