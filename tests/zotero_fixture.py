"""A Zotero data directory built for tests: the tables citeloom reads, with Zotero's own table
and column names (``resource/schema/userdata.sql`` of the Zotero repository; the type and
field tables Zotero fills from its global schema), and real PDFs from ../shared attached as
stored files (symbolic links under storage/) and as a linked file (read where it lives).

Citation keys sit in each of the three places Zotero users keep them: the ``citationKey``
field (Zotero 7), a ``Citation Key:`` line in ``extra``, and Better BibTeX's key store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import PAPERS

SCHEMA = """
CREATE TABLE libraries (
    libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL,
    filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0,
    storageVersion INT NOT NULL DEFAULT 0, lastSync INT NOT NULL DEFAULT 0,
    archived INT NOT NULL DEFAULT 0
);
CREATE TABLE itemTypes (
    itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1
);
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE items (
    itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL,
    dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key)
);
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID));
CREATE TABLE creators (
    creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT,
    UNIQUE (lastName, firstName, fieldMode)
);
CREATE TABLE itemCreators (
    itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex)
);
CREATE TABLE itemAttachments (
    itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT,
    charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash TEXT,
    lastProcessedModificationTime INT
);
CREATE TABLE itemAnnotations (
    itemID INTEGER PRIMARY KEY, parentItemID INT NOT NULL, type INTEGER NOT NULL,
    authorName TEXT, text TEXT, comment TEXT, color TEXT, pageLabel TEXT,
    sortIndex TEXT NOT NULL, position TEXT NOT NULL, isExternal INT NOT NULL
);
CREATE TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT NULL,
    PRIMARY KEY (itemID, tagID));
CREATE TABLE collections (
    collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL,
    parentCollectionID INT DEFAULT NULL,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL,
    key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key)
);
CREATE TABLE collectionItems (
    collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (collectionID, itemID)
);
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY,
    dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);
CREATE TABLE groups (
    groupID INTEGER PRIMARY KEY, libraryID INT NOT NULL UNIQUE, name TEXT NOT NULL,
    description TEXT NOT NULL, version INT NOT NULL,
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE
);
"""

# Better BibTeX's key store (content/db/citation-key.sql of zotero-better-bibtex)
BBT_SCHEMA = """
CREATE TABLE citationkey (
  itemID NOT NULL UNIQUE, itemKey NOT NULL, libraryID NOT NULL,
  citationKey NOT NULL CHECK (citationKey <> ''), pinned CHECK (pinned in (0, 1)),
  UNIQUE (libraryID, itemKey)
);
"""

# Better BibTeX's auto-exports (content/db/auto-export.sql of zotero-better-bibtex, in the
# database Zotero attaches as ``betterbibtex``: better-bibtex.sqlite)
BBT_AUTO_EXPORT_SCHEMA = """
CREATE TABLE IF NOT EXISTS autoExport (
  type CHECK (type IN ('library', 'collection')), id NOT NULL, path NOT NULL UNIQUE,
  status CHECK (status in ('scheduled', 'running', 'done', 'error')),
  recursive CHECK (recursive IN (0, 1)), error NOT NULL, updated NOT NULL,
  translatorID CHECK (translatorID IN ('BetterBibTeX JSON', 'Better CSL YAML',
    'Better CSL JSON', 'Better BibTeX', 'Better BibLaTeX')),
  exportNotes CHECK (exportNotes IN (0, 1)),
  useJournalAbbreviation CHECK (useJournalAbbreviation IN (0, 1)),
  asciiBibLaTeX, biblatexExtendedNameFormat, DOIandURL, bibtexURL
);
"""

ITEM_TYPES = {"journalArticle": 22, "attachment": 3, "note": 28, "annotation": 1, "book": 7}
FIELDS = {
    "title": 1,
    "date": 6,
    "DOI": 59,
    "pages": 32,
    "url": 13,
    "extra": 16,
    "publicationTitle": 38,
    "citationKey": 120,
}
CREATOR_TYPES = {"author": 8, "editor": 10}
IMPORTED_FILE, IMPORTED_URL, LINKED_FILE, LINKED_URL = 0, 1, 2, 3
PDF = "application/pdf"


@dataclass
class ZoteroFixture:
    """A data directory, and what a reader of it should find."""

    data_dir: Path
    # attachment file path -> the citekey its item has (None: the item has none)
    attachments: dict[str, str | None] = field(default_factory=dict)
    item_ids: dict[str, int] = field(default_factory=dict)  # item key -> itemID

    @property
    def database(self) -> Path:
        return self.data_dir / "zotero.sqlite"

    def connect(self) -> sqlite3.Connection:
        """Zotero itself, writing to its database (the test plays the user)."""
        return sqlite3.connect(self.database)

    @contextmanager
    def edit(self) -> Iterator[ZoteroWriter]:
        """Zotero adding items, as the user does after the library was built."""
        db = self.connect()
        writer = ZoteroWriter(db, self.data_dir)
        writer.next_id = db.execute("SELECT max(itemID) FROM items").fetchone()[0] + 1
        try:
            yield writer
            db.commit()
            self.item_ids = {
                key: item_id for item_id, key in db.execute("SELECT itemID, key FROM items")
            }
        finally:
            db.close()


class ZoteroWriter:
    def __init__(self, db: sqlite3.Connection, data_dir: Path) -> None:
        self.db = db
        self.data_dir = data_dir
        self.next_id = 1

    def item(self, key: str, item_type: str, library: int = 1, **data: str) -> int:
        item_id = self.next_id
        self.next_id += 1
        self.db.execute(
            "INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (?, ?, ?, ?)",
            (item_id, ITEM_TYPES[item_type], library, key),
        )
        for name, value in data.items():
            self.db.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
            (value_id,) = self.db.execute(
                "SELECT valueID FROM itemDataValues WHERE value = ?", (value,)
            ).fetchone()
            self.db.execute(
                "INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
                (item_id, FIELDS[name], value_id),
            )
        return item_id

    def authors(self, item_id: int, *names: tuple[str, str]) -> None:
        for order, (last, first) in enumerate(names):
            self.db.execute(
                "INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)",
                (first, last),
            )
            (creator,) = self.db.execute(
                "SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ?",
                (first, last),
            ).fetchone()
            self.db.execute(
                "INSERT INTO itemCreators VALUES (?, ?, ?, ?)",
                (item_id, creator, CREATOR_TYPES["author"], order),
            )

    def library(self, library_id: int, kind: str, group_id: int | None = None) -> None:
        """Another library: a group (Zotero's ``groups`` row gives its zotero.org id) or a
        feed."""
        self.db.execute(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (?, ?, 1, 1)",
            (library_id, kind),
        )
        if group_id is not None:
            self.db.execute(
                "INSERT INTO groups (groupID, libraryID, name, description, version) "
                "VALUES (?, ?, 'Lab', '', 0)",
                (group_id, library_id),
            )

    def stored(
        self,
        parent: int | None,
        key: str,
        source: Path | None,
        name: str,
        content_type: str = PDF,
        library: int = 1,
    ) -> tuple[int, Path]:
        """An imported file: storage/<key>/<name>, a link to ``source`` (None: missing)."""
        folder = self.data_dir / "storage" / key
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if source is not None:
            path.symlink_to(source)
        item_id = self.item(key, "attachment", library, title=name)
        self.db.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, parent, IMPORTED_FILE, content_type, f"storage:{name}"),
        )
        return item_id, path

    def linked(self, parent: int, key: str, path: str, link_mode: int = LINKED_FILE) -> int:
        item_id = self.item(key, "attachment", title=Path(path).name)
        self.db.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, parent, link_mode, PDF if link_mode == LINKED_FILE else None, path),
        )
        return item_id

    def tag(self, item_id: int, name: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO tags (name) VALUES (?)", (name,))
        (tag_id,) = self.db.execute("SELECT tagID FROM tags WHERE name = ?", (name,)).fetchone()
        self.db.execute("INSERT INTO itemTags VALUES (?, ?, 0)", (item_id, tag_id))

    def collection(self, name: str, key: str, parent: int | None = None) -> int:
        cursor = self.db.execute(
            "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) "
            "VALUES (?, ?, 1, ?)",
            (name, parent, key),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def annotation(
        self, attachment: int, key: str, kind: int, text: str, comment: str, page_label: str
    ) -> int:
        item_id = self.item(key, "annotation")
        self.db.execute(
            "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, "
            "pageLabel, sortIndex, position, isExternal) VALUES (?, ?, ?, ?, ?, '#ffd400', ?, "
            "?, ?, 0)",
            (
                item_id,
                attachment,
                kind,
                text,
                comment,
                page_label,
                f"{int(page_label) if page_label.isdigit() else 0:05d}|000100|00200",
                '{"pageIndex":1,"rects":[[100,600,500,620]]}',
            ),
        )
        return item_id


def build_zotero(folder: Path) -> ZoteroFixture:
    """The library: five entries, four PDF attachments (stored and linked), one missing
    file, one web snapshot (not a PDF), an entry in the trash, collections, tags and two
    annotations."""
    data_dir = folder / "Zotero"
    data_dir.mkdir(parents=True)
    fixture = ZoteroFixture(data_dir)
    db = sqlite3.connect(data_dir / "zotero.sqlite")
    db.executescript(SCHEMA)
    db.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)"
    )
    db.executemany(
        "INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)",
        [(v, k) for k, v in ITEM_TYPES.items()],
    )
    db.executemany(
        "INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)", [(v, k) for k, v in FIELDS.items()]
    )
    db.executemany(
        "INSERT INTO creatorTypes VALUES (?, ?)", [(v, k) for k, v in CREATOR_TYPES.items()]
    )
    w = ZoteroWriter(db, data_dir)

    # citationKey field (Zotero 7); a stored PDF, a web snapshot, a collection, a tag
    bosons = w.item(
        "BOSONS01",
        "journalArticle",
        title="Ultra light bosonic dark matter and CMB",
        date="2009-08-01 2009-08-01",
        citationKey="rodriguezmontoya2009ultra",
        url="http://arxiv.org/abs/0908.0054",
    )
    w.authors(bosons, ("Rodriguez-Montoya", "Ivan"), ("Matos", "Tonatiuh"))
    bosons_pdf, path = w.stored(
        bosons,
        "PDFBOS01",
        PAPERS / "grobid_1001._0908.0054.pdf",
        "Rodriguez-Montoya 2009 - Ultra light.pdf",
    )
    fixture.attachments[str(path)] = "rodriguezmontoya2009ultra"
    snapshot = data_dir / "storage" / "HTMLSNAP"
    snapshot.mkdir(parents=True)
    (snapshot / "arxiv.html").write_text("<html><body>arXiv abstract page</body></html>")
    w.db.execute(
        "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
        "VALUES (?, ?, ?, 'text/html', 'storage:arxiv.html')",
        (w.item("HTMLSNAP", "attachment", title="arXiv.org Snapshot"), bosons, IMPORTED_URL),
    )
    w.linked(bosons, "LINKURL1", "http://arxiv.org/abs/0908.0054", link_mode=LINKED_URL)

    # a "Citation Key:" line in extra; a linked file, read where it lives
    wang = w.item(
        "WANGAVE8",
        "journalArticle",
        title="Information Synthesis for Answer Validation",
        date="2008",
        extra="Citation Key: wang2008information\ntex.type: inproceedings",
    )
    w.authors(wang, ("Wang", "Rui"), ("Neumann", "Günter"))
    w.linked(wang, "PDFWANG1", str(PAPERS / "grobid_Wang-paperAVE2008.pdf"))
    fixture.attachments[str(PAPERS / "grobid_Wang-paperAVE2008.pdf")] = "wang2008information"

    # Better BibTeX's key store only
    hong = w.item(
        "HONGSOL9",
        "journalArticle",
        title="Exact Solitary-wave Solutions for the General Fifth-order Shallow Water Wave "
        "Equation",
        date="1999",
        pages="272-278",
        publicationTitle="Zeitschrift für Naturforschung A",
    )
    w.authors(hong, ("Hong", "Woo-Pyo"), ("Jung", "Young-Dae"))
    hong_pdf, path = w.stored(
        hong, "PDFHONG1", PAPERS / "grobid_ZFN-A-054-0304-0272.pdf", "hong.pdf"
    )
    fixture.attachments[str(path)] = "hong1999exact"

    # no citation key anywhere: reported, never guessed
    keyless = w.item("NOKEY001", "journalArticle", title="A draft without a key", date="2010")
    _, path = w.stored(keyless, "PDFNOKEY", PAPERS / "grobid_submission_363.pdf", "draft.pdf")
    fixture.attachments[str(path)] = None

    # a stored file Zotero has not downloaded
    mullen = w.item(
        "MULLEN07",
        "journalArticle",
        citationKey="mullen2007timp",
        title="TIMP: An R Package for Modeling Multi-way Spectroscopic Measurements",
        DOI="10.18637/jss.v018.i03",
        date="2007-01",
    )
    w.stored(mullen, "PDFMISS1", None, "Mullen 2007.pdf")

    # an entry in the trash, with its PDF still on disk
    trashed = w.item("TRASHED1", "journalArticle", citationKey="trashed2010", title="Gone")
    w.stored(trashed, "PDFTRASH", PAPERS / "grobid_submission_355.pdf", "gone.pdf")
    w.db.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (trashed,))

    thesis = w.collection("Thesis", "COLLTHES")
    chapter = w.collection("Chapter 2", "COLLCH02", parent=thesis)
    w.db.execute("INSERT INTO collectionItems VALUES (?, ?, 0)", (chapter, bosons))
    w.db.execute("INSERT INTO collectionItems VALUES (?, ?, 0)", (thesis, wang))
    w.tag(bosons, "to-read")
    w.tag(hong, "to-read")
    w.tag(hong, "solitons")

    w.annotation(
        bosons_pdf,
        "ANNOT001",
        1,
        "the scalar field behaves as dark matter",
        "compare with chapter 2",
        "2",
    )
    w.annotation(hong_pdf, "ANNOT002", 2, "", "the fifth-order equation needs a check", "273")
    db.commit()
    fixture.item_ids = {
        key: item_id for item_id, key in db.execute("SELECT itemID, key FROM items")
    }
    db.close()

    bbt = sqlite3.connect(data_dir / "better-bibtex.sqlite")
    bbt.executescript(BBT_SCHEMA)
    bbt.execute("INSERT INTO citationkey VALUES (?, 'HONGSOL9', 1, 'hong1999exact', 0)", (hong,))
    bbt.commit()
    bbt.close()
    return fixture


def add_auto_export(data_dir: Path, path: Path, translator: str = "Better CSL JSON") -> None:
    """Better BibTeX keeping ``path`` updated as an export of the whole library."""
    bbt = sqlite3.connect(data_dir / "better-bibtex.sqlite")
    try:
        bbt.executescript(BBT_AUTO_EXPORT_SCHEMA)
        bibtex = translator in ("Better BibTeX", "Better BibLaTeX")
        bbt.execute(
            "INSERT INTO autoExport (type, id, path, status, recursive, error, updated, "
            "translatorID, exportNotes, useJournalAbbreviation, asciiBibLaTeX, "
            "biblatexExtendedNameFormat, DOIandURL, bibtexURL) "
            "VALUES ('library', 1, ?, 'done', 0, '', 0, ?, 0, 0, ?, ?, ?, ?)",
            (
                str(path),
                translator,
                0 if translator == "Better BibLaTeX" else None,
                0 if translator == "Better BibLaTeX" else None,
                1 if bibtex else None,
                0 if translator == "Better BibTeX" else None,
            ),
        )
        bbt.commit()
    finally:
        bbt.close()


def empty_data_dir(folder: Path) -> Path:
    """A data directory as Zotero leaves it before anything is added: the database alone."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "zotero.sqlite")
    try:
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) "
            "VALUES (1, 'user', 1, 1)"
        )
        db.commit()
    finally:
        db.close()
    return folder


def zotero_prefs(profile: Path, data_dir: Path | str, use: bool = True) -> Path:
    """A Zotero profile whose settings moved the data directory to ``data_dir`` (Settings,
    Advanced, Files and Folders, Custom), as Zotero writes its prefs.js."""
    import json

    profile.mkdir(parents=True, exist_ok=True)
    prefs = profile / "prefs.js"
    prefs.write_text(
        "// Mozilla User Preferences\n"
        'user_pref("extensions.zotero.firstRun2", false);\n'
        f'user_pref("extensions.zotero.dataDir", {json.dumps(str(data_dir))});\n'
        f'user_pref("extensions.zotero.useDataDir", {"true" if use else "false"});\n',
        encoding="utf-8",
    )
    return prefs
