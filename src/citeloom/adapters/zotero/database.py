"""A Zotero data directory read into citeloom's terms: entries, attachments, annotations.

Everything is read from one snapshot of ``zotero.sqlite`` (``snapshot.py``), never from the
live file. Column and table names are Zotero's own (``resource/schema/userdata.sql`` in the
Zotero repository); item types and fields are looked up by name, never by id, because their
ids differ between installations.

The citation key of an entry comes from, in this order: Zotero's own ``citationKey`` field
(Zotero 7), a ``Citation Key: ...`` line in ``extra``, Better BibTeX's key store
(``better-bibtex.sqlite``, table ``citationkey``). An entry without one is reported with its
attachments, never given a guessed key; so are entries that claim a key another entry claims
too (``domain.citekeys``): their PDFs are cited by their Zotero item until the library is
fixed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citeloom.adapters.zotero.snapshot import snapshot
from citeloom.domain.citekeys import (
    BETTER_BIBTEX,
    CITATION_KEY_FIELD,
    EXTRA_LINE,
    KeyClaim,
    LibraryProblem,
    no_usable_key_label,
    shared_key_problem,
    shared_keys,
)
from citeloom.domain.errors import ReferencesError
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.library_filters import collection_path
from citeloom.domain.matching import arxiv_id_of_doi, arxiv_id_of_field, find_dois, normalise_doi
from citeloom.domain.models import Reference
from citeloom.domain.notes import ANNOTATION, MAX_PAGE, NoteItem
from citeloom.domain.page_labels import pages_choice
from citeloom.domain.zotero_links import USER_LIBRARY, group_library

DATABASE = "zotero.sqlite"
BBT_DATABASE = "better-bibtex.sqlite"
PDF = "application/pdf"

# itemAttachments.linkMode
IMPORTED_FILE, IMPORTED_URL, LINKED_FILE = 0, 1, 2
# itemAnnotations.type
ANNOTATION_TYPES = {1: "highlight", 2: "note", 3: "image", 4: "ink", 5: "underline", 6: "text"}
NOT_ENTRIES = {"attachment", "note", "annotation"}

_CITATION_KEY_LINE = re.compile(r"^\s*citation\s*key\s*:\s*(\S+)\s*$", re.I | re.M)
_DOI_LINE = re.compile(r"^\s*doi\s*:\s*(\S+)\s*$", re.I | re.M)
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_TITLE_FIELDS = ("title", "caseName", "nameOfAct", "subject")
_CONTAINER_FIELDS = ("publicationTitle", "proceedingsTitle", "bookTitle", "websiteTitle")


@dataclass
class ZoteroLibrary:
    """One consistent state of a Zotero library, as citeloom uses it."""

    references: list[Reference] = field(default_factory=list)
    attachments: list[LibraryAttachment] = field(default_factory=list)
    annotations: list[NoteItem] = field(default_factory=list)
    without_key: list[str] = field(default_factory=list)  # "ABCD2345 (Title)" of keyless items
    # what is wrong with the library's keys: shared keys, keyless items
    problems: list[LibraryProblem] = field(default_factory=list)
    shared: set[str] = field(default_factory=set)  # keys several items claim: nobody's

    @property
    def fingerprint(self) -> str:
        """Changes with what citeloom reads, not with Zotero's own bookkeeping (sync times)."""
        data = [
            [asdict(r) for r in self.references],
            [a.to_json() for a in self.attachments],
            [n.to_json() for n in self.annotations],
        ]
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=list)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_library(data_dir: Path, base_dir: Path | None = None) -> ZoteroLibrary:
    """The library in ``data_dir`` (Zotero's data directory); ``base_dir``: Zotero's "base
    directory" for linked files stored relative to it (``attachments:`` paths)."""
    database = data_dir / DATABASE
    if not database.is_file():
        raise ReferencesError(
            f"{data_dir}: no {DATABASE} here. Set zotero to Zotero's data directory (Zotero: "
            "Settings > Advanced > Files and Folders > Data Directory Location), e.g. ~/Zotero."
        )
    bbt = _bbt_keys(data_dir / BBT_DATABASE)
    with snapshot(database) as db:
        try:
            return _Reader(db, data_dir, base_dir, bbt).read()
        except sqlite3.DatabaseError as error:
            raise ReferencesError(
                f"{database}: not a Zotero database citeloom can read ({error}). Check that "
                "zotero points at Zotero's data directory and that Zotero is version 6 or later."
            ) from error


def _bbt_keys(path: Path) -> dict[tuple[int, str], str]:
    """Better BibTeX's citation keys by (libraryID, item key); none when it is not installed."""
    if not path.is_file():
        return {}
    with snapshot(path) as db:
        try:
            rows = db.execute("SELECT libraryID, itemKey, citationKey FROM citationkey").fetchall()
        except sqlite3.DatabaseError:
            return {}  # an older Better BibTeX kept its keys elsewhere; Zotero's fields remain
    return {(int(r[0]), str(r[1])): str(r[2]) for r in rows if r[2]}


class _Reader:
    def __init__(
        self,
        db: sqlite3.Connection,
        data_dir: Path,
        base_dir: Path | None,
        bbt: dict[tuple[int, str], str],
    ) -> None:
        self.db = db
        self.data_dir = data_dir
        self.base_dir = base_dir
        self.bbt = bbt
        self.tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}

    def read(self) -> ZoteroLibrary:
        deleted = (
            self._ids("SELECT itemID FROM deletedItems") if "deletedItems" in self.tables else set()
        )
        items = {
            r["itemID"]: r
            for r in self.db.execute(
                "SELECT i.itemID, i.key, i.libraryID, t.typeName FROM items i "
                "JOIN itemTypes t ON t.itemTypeID = i.itemTypeID"
            )
            if r["itemID"] not in deleted
        }
        fields: dict[int, dict[str, str]] = defaultdict(dict)
        for r in self.db.execute(
            "SELECT d.itemID, f.fieldName, v.value FROM itemData d "
            "JOIN fields f ON f.fieldID = d.fieldID JOIN itemDataValues v ON v.valueID = d.valueID"
        ):
            fields[r[0]][r[1]] = str(r[2])
        library = ZoteroLibrary()
        entries = {i: item for i, item in items.items() if item["typeName"] not in NOT_ENTRIES}
        claims = {
            item_id: claim
            for item_id, item in entries.items()
            if (claim := self._claim(item, fields.get(item_id, {}))) is not None
        }
        shared = shared_keys(claims.values())
        library.shared = set(shared)
        citekeys: dict[int, str | None] = {}
        no_key: dict[int, str] = {}  # why an entry has no usable key
        creators, tags, collections = self._creators(), self._tags(), self._collections()
        for item_id, item in entries.items():
            data = fields.get(item_id, {})
            claim = claims.get(item_id)
            citekey = claim.citekey if claim is not None and claim.citekey not in shared else None
            citekeys[item_id] = citekey
            if claim is None:
                library.without_key.append(f"{item['key']} ({_first(data, _TITLE_FIELDS)})")
                no_key[item_id] = (
                    f"Zotero item {item['key']} has no citation key: give it one (Better "
                    "BibTeX, or a 'Citation Key: ...' line in Extra)"
                )
            elif citekey is None:
                others = [c.describe() for c in shared[claim.citekey] if c is not claim]
                no_key[item_id] = (
                    f"Zotero item {item['key']} shares its citation key {claim.citekey} with "
                    f"{'; '.join(others)}: give each its own key"
                )
            if citekey is None:
                continue
            library.references.append(
                _reference(
                    citekey,
                    item["typeName"],
                    data,
                    creators.get(item_id, []),
                    tags.get(item_id, []),
                    collections.get(item_id, []),
                )
            )
        library.references.sort(key=lambda r: r.citekey)
        library.problems = [
            shared_key_problem(
                key,
                found,
                "give each its own key in Zotero (Better BibTeX: right-click > Better BibTeX > "
                "Refresh BibTeX key, or edit the Citation Key field); the next ingest relabels "
                "their PDFs",
            )
            for key, found in sorted(shared.items())
        ]
        if library.without_key:
            library.problems.append(_keyless_problem(library.without_key))
        library.problems += [
            problem
            for item_id, claim in claims.items()
            if (problem := self._key_disagreement(entries[item_id], claim)) is not None
        ]
        by_attachment = self._attachments(items, citekeys, no_key, library)
        library.annotations = self._annotations(items, deleted, by_attachment, tags)
        return library

    def _ids(self, sql: str) -> set[int]:
        return {r[0] for r in self.db.execute(sql)}

    def _claim(self, item: sqlite3.Row, data: dict[str, str]) -> KeyClaim | None:
        """The entry's citation key and where it is written; None when it has none."""
        found = None
        if key := data.get("citationKey", "").strip():
            found = key, CITATION_KEY_FIELD
        elif match := _CITATION_KEY_LINE.search(data.get("extra", "")):
            found = match.group(1), EXTRA_LINE
        elif key := self.bbt.get((int(item["libraryID"]), str(item["key"])), ""):
            found = key, BETTER_BIBTEX
        if found is None:
            return None
        title = _first(data, _TITLE_FIELDS)
        return KeyClaim(found[0], f"Zotero item {item['key']}", title, found[1])

    def _key_disagreement(self, item: sqlite3.Row, claim: KeyClaim) -> LibraryProblem | None:
        """An item whose key Zotero holds (its field or Extra) and Better BibTeX's store holds
        differently: the two tools would cite it by two keys."""
        stored = self.bbt.get((int(item["libraryID"]), str(item["key"])))
        if claim.source == BETTER_BIBTEX or stored is None or stored == claim.citekey:
            return None
        return LibraryProblem(
            "key-disagreement",
            f"{claim.describe()} says {claim.citekey}, Better BibTeX's key store says "
            f"{stored}: citeloom cites it as @{claim.citekey} (the {claim.source} comes "
            "first), a Better BibTeX export as @" + stored,
            "give the item one key in both: edit its Citation Key field (or Extra line) in "
            "Zotero, or change its Better BibTeX key (right-click > Better BibTeX)",
        )

    def _creators(self) -> dict[int, list[tuple[str, str]]]:
        """(creator type, "Family, Given") per item, in Zotero's order."""
        out: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for r in self.db.execute(
            "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, t.creatorType "
            "FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID "
            "JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID "
            "ORDER BY ic.itemID, ic.orderIndex"
        ):
            last, first = (r["lastName"] or "").strip(), (r["firstName"] or "").strip()
            name = last if r["fieldMode"] == 1 or not first else f"{last}, {first}"
            if name:
                out[r["itemID"]].append((r["creatorType"], name))
        return out

    def _tags(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = defaultdict(list)
        for r in self.db.execute(
            "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID "
            "ORDER BY t.name"
        ):
            out[r[0]].append(str(r[1]))
        return out

    def _collections(self) -> dict[int, list[str]]:
        """Each item's collections as paths from the top: "Thesis/Chapter 2" (a slash in a
        name escaped: "Thesis\\/Chapter 2", ``domain.library_filters``)."""
        rows = {
            r[0]: (str(r[1]), r[2])
            for r in self.db.execute(
                "SELECT collectionID, collectionName, parentCollectionID FROM collections"
            )
        }
        gone = (
            self._ids("SELECT collectionID FROM deletedCollections")
            if "deletedCollections" in self.tables
            else set()
        )

        def path(collection_id: int) -> str | None:
            parts: list[str] = []
            seen: set[int] = set()
            current: int | None = collection_id
            while current is not None and current in rows and current not in seen:
                if current in gone:
                    return None
                seen.add(current)
                name, current = rows[current]
                parts.append(name)
            return collection_path(reversed(parts))

        out: dict[int, list[str]] = defaultdict(list)
        for collection_id, item_id in self.db.execute(
            "SELECT collectionID, itemID FROM collectionItems"
        ):
            if (where := path(collection_id)) is not None:
                out[item_id].append(where)
        return {item: sorted(set(paths)) for item, paths in out.items()}

    def _attachments(
        self,
        items: dict[int, sqlite3.Row],
        citekeys: dict[int, str | None],
        no_key: dict[int, str],
        library: ZoteroLibrary,
    ) -> dict[int, str | None]:
        """Fills ``library.attachments``; returns the citekey of each ingested attachment."""
        ingested: dict[int, str | None] = {}
        links = self._link_libraries()
        for r in self.db.execute(
            "SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments "
            "ORDER BY itemID"
        ):
            item = items.get(r["itemID"])
            parent = r["parentItemID"]
            if item is None or (parent is not None and parent not in items):
                continue  # in the trash, or attached to an entry in the trash
            if r["linkMode"] not in (IMPORTED_FILE, IMPORTED_URL, LINKED_FILE) or not r["path"]:
                continue  # a link to a web page, or an image inside a note: no file
            path = self._path(str(item["key"]), r["linkMode"], str(r["path"]))
            citekey = citekeys.get(parent) if parent is not None else None
            why = no_key.get(parent) if parent is not None else None
            skipped = _skipped(path, r["contentType"])
            if skipped is None:
                ingested[r["itemID"]] = citekey
            library.attachments.append(
                LibraryAttachment(
                    path=str(path) if isinstance(path, Path) else path,
                    item_key=str(item["key"]),
                    parent_key=str(items[parent]["key"]) if parent is not None else None,
                    citekey=citekey,
                    content_type=r["contentType"],
                    skipped=skipped,
                    library_id=int(item["libraryID"]),
                    no_key=why,
                    link_library=links.get(int(item["libraryID"])),
                )
            )
        return ingested

    def _link_libraries(self) -> dict[int, str]:
        """Each library's part of a zotero:// link, by libraryID: the user's library is
        ``library``, a group ``groups/<groupID>`` (Zotero's protocol handler looks a group up
        by its zotero.org id, not by the local libraryID). A feed, or a group whose id is not
        in ``groups``, has none: its results carry no links."""
        if "libraries" not in self.tables:
            return {}
        out = {
            int(r["libraryID"]): USER_LIBRARY
            for r in self.db.execute("SELECT libraryID FROM libraries WHERE type = 'user'")
        }
        if "groups" in self.tables:
            for r in self.db.execute("SELECT groupID, libraryID FROM groups"):
                out[int(r["libraryID"])] = group_library(int(r["groupID"]))
        return out

    def _path(self, key: str, link_mode: int, stored: str) -> Path | str:
        """Where the file is: storage/<key>/<name> for a stored file; a linked file where it
        is, relative to the base directory when Zotero stored it so (a str: unknown)."""
        if link_mode in (IMPORTED_FILE, IMPORTED_URL):
            return self.data_dir / "storage" / key / stored.removeprefix("storage:")
        if stored.startswith("attachments:"):
            if self.base_dir is None:
                return stored
            return self.base_dir / stored.removeprefix("attachments:")
        return Path(stored).expanduser()

    def _annotations(
        self,
        items: dict[int, sqlite3.Row],
        deleted: set[int],
        attachments: dict[int, str | None],
        tags: dict[int, list[str]],
    ) -> list[NoteItem]:
        if "itemAnnotations" not in self.tables:
            return []
        notes: dict[str, NoteItem] = {}
        for r in self.db.execute(
            "SELECT itemID, parentItemID, type, text, comment, pageLabel FROM itemAnnotations "
            "ORDER BY parentItemID, sortIndex, itemID"
        ):
            if r["itemID"] in deleted or r["parentItemID"] not in attachments:
                continue
            note = _annotation_note(
                r, attachments[r["parentItemID"]], tuple(tags.get(r["itemID"], ()))
            )
            if note is not None and not note.problems():
                notes.setdefault(note.doc_id, note)
        return list(notes.values())


def _skipped(path: Path | str, content_type: str | None) -> str | None:
    if isinstance(path, str):
        return (
            f"linked file {path} is relative to Zotero's base directory: set zotero_base_dir "
            "in the project (Zotero: Settings > Advanced > Files and Folders)"
        )
    if content_type != PDF and path.suffix.lower() != ".pdf":
        return f"not a PDF ({content_type or path.suffix or 'unknown type'})"
    if not path.is_file():
        return f"the file is missing ({path}): Zotero has not downloaded it, or it was moved"
    return None


def _keyless_problem(keyless: list[str]) -> LibraryProblem:
    shown = ", ".join(keyless[:5]) + (f" and {len(keyless) - 5} more" if len(keyless) > 5 else "")
    some = "1 Zotero entry has" if len(keyless) == 1 else f"{len(keyless)} Zotero entries have"
    return LibraryProblem(
        "no-key",
        f"{some} no citation key, so their PDFs are cited by the item "
        f"([{no_usable_key_label('KEY')}, p. N]): {shown}",
        "give each one (Better BibTeX, or a 'Citation Key: ...' line in Extra)",
    )


def _first(data: dict[str, str], names: tuple[str, ...]) -> str:
    return next((data[n].strip() for n in names if data.get(n, "").strip()), "")


def _reference(
    citekey: str,
    item_type: str,
    data: dict[str, str],
    creators: list[tuple[str, str]],
    tags: list[str],
    collections: list[str],
) -> Reference:
    authors = [name for kind, name in creators if kind == "author"]
    if not authors and creators:  # an edited book: its editors, else whoever comes first
        first_kind = creators[0][0]
        authors = [name for kind, name in creators if kind == first_kind]
    extra = data.get("extra", "")
    doi = normalise_doi(data.get("DOI")) if data.get("DOI") else None
    if doi is None and (line := _DOI_LINE.search(extra)):
        doi = normalise_doi(line.group(1)) or next(iter(find_dois(line.group(1))), None)
    year_match = _YEAR.search(data.get("date", ""))
    url = data.get("url") or None
    arxiv = arxiv_id_of_doi(doi) or next(
        (
            found
            for name in ("archiveID", "number", "reportNumber", "url", "extra")
            if (found := arxiv_id_of_field(data.get(name, "")))
        ),
        None,
    )
    return Reference(
        citekey=citekey,
        title=_first(data, _TITLE_FIELDS),
        authors=tuple(authors),
        year=int(year_match.group(1)) if year_match else None,
        doi=doi,
        url=url,
        arxiv_id=arxiv,
        container_title=_first(data, _CONTAINER_FIELDS) or None,
        page=data.get("pages", "").strip() or None,
        entry_id=citekey,
        tags=tuple(tags),
        collections=tuple(collections),
        item_type=item_type,
        pages_choice=pages_choice(extra),
    )


def _annotation_note(
    row: sqlite3.Row, citekey: str | None, tags: tuple[str, ...]
) -> NoteItem | None:
    """A highlight with its comment, or a comment alone, as a note of kind "annotation"."""
    quoted = (row["text"] or "").strip()
    comment = (row["comment"] or "").strip()
    if not quoted and not comment:
        return None  # an ink drawing or an image area without a comment: no text to search
    text = "\n".join(part for part in (f"“{quoted}”" if quoted else "", comment) if part)
    label = (row["pageLabel"] or "").strip()
    page = int(label) if label.isdigit() and 1 <= int(label) <= MAX_PAGE else None
    what = f"Zotero {ANNOTATION_TYPES.get(row['type'], 'annotation')}"
    return NoteItem(
        text=text,
        citekey=citekey,
        section=what if page is not None or not label else f"{what}, p. {label}",
        page=page,
        tags=tags,
        kind=ANNOTATION,
    )


def describe(library: ZoteroLibrary) -> dict[str, Any]:
    """Counts for validate and the docs."""
    return {
        "entries": len(library.references),
        "without_key": len(library.without_key),
        "attachments": sum(a.skipped is None for a in library.attachments),
        "skipped": sum(a.skipped is not None for a in library.attachments),
        "annotations": len(library.annotations),
    }
