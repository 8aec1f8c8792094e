"""Where a researcher's Zotero keeps its data, and where Better BibTeX writes its exports:
what ``citeloom init`` offers before asking.

Zotero's data directory is ``~/Zotero`` unless the user moved it (Settings, Advanced, Files and
Folders), which Zotero records in its profile's ``prefs.js`` as
``user_pref("extensions.zotero.dataDir", "...")`` with ``extensions.zotero.useDataDir`` set.
The profile folder differs by system: ``~/.zotero/zotero/<profile>/`` on Linux,
``~/Library/Application Support/Zotero/Profiles/<profile>/`` on macOS,
``%APPDATA%\\Zotero\\Zotero\\Profiles\\<profile>\\`` on Windows. A folder counts only when it
holds ``zotero.sqlite``.

Better BibTeX keeps its auto-exports in ``better-bibtex.sqlite`` beside Zotero's database:
table ``autoexport`` (``path``, ``translatorID``; ``content/db/auto-export.sql`` of
zotero-better-bibtex), and in its earlier releases as a JSON document under the name
``better-bibtex.autoexport`` of the table ``better-bibtex``. Both are read from a snapshot
(``snapshot.py``): Zotero may be running.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from citeloom.adapters.zotero.database import BBT_DATABASE, DATABASE
from citeloom.adapters.zotero.snapshot import snapshot
from citeloom.domain.errors import ReferencesError

# one line of prefs.js: user_pref("name", value); a string value as JavaScript writes it
_PREF = re.compile(r'^\s*user_pref\(\s*"([^"]+)"\s*,\s*("(?:[^"\\]|\\.)*"|true|false|-?\d+)\s*\)')
DATA_DIR_PREF = "extensions.zotero.dataDir"
USE_DATA_DIR_PREF = "extensions.zotero.useDataDir"
# the exports citeloom reads (Better BibTeX's JSON and CSL YAML it does not)
READABLE_TRANSLATORS = frozenset({"Better CSL JSON", "Better BibTeX", "Better BibLaTeX"})
# the same translators as Better BibTeX's earlier releases recorded them, by id
_TRANSLATOR_IDS = {
    "f4b52ab0-f878-4556-85a0-c7aeedd09dfc": "Better CSL JSON",
    "ca65189f-8815-4afe-8c8b-8c7c15f0edca": "Better BibTeX",
    "f895aa0d-f28e-47fe-b247-2ea77c6ed583": "Better BibLaTeX",
}


@dataclass(frozen=True)
class Found:
    """A place found, and how: shown beside it so the user can judge the guess."""

    path: Path
    how: str


def read_prefs(text: str) -> dict[str, str | bool | int]:
    """The values of a ``prefs.js``: strings unescaped as JavaScript writes them."""
    prefs: dict[str, str | bool | int] = {}
    for line in text.splitlines():
        match = _PREF.match(line)
        if match is None:
            continue
        name, raw = match.groups()
        if raw in ("true", "false"):
            prefs[name] = raw == "true"
        elif raw.startswith('"'):
            try:
                prefs[name] = json.loads(raw)
            except json.JSONDecodeError:
                continue
        else:
            prefs[name] = int(raw)
    return prefs


def profile_folders(home: Path, environ: Mapping[str, str]) -> list[Path]:
    """Zotero's profile folders on this machine, whichever system wrote them."""
    roots = [
        home / ".zotero" / "zotero",
        home / "Library" / "Application Support" / "Zotero" / "Profiles",
    ]
    if appdata := environ.get("APPDATA"):
        roots.append(Path(appdata) / "Zotero" / "Zotero" / "Profiles")
    folders: list[Path] = []
    for root in roots:
        try:
            folders += sorted(p for p in root.iterdir() if (p / "prefs.js").is_file())
        except OSError:
            continue
    return folders


def is_data_dir(folder: Path) -> bool:
    return (folder / DATABASE).is_file()


def data_dirs(home: Path, environ: Mapping[str, str]) -> list[Found]:
    """Zotero data directories, the one a profile's ``prefs.js`` names first (the user chose
    it), then the default ``~/Zotero``; each once, and only folders holding zotero.sqlite."""
    found: list[Found] = []
    for profile in profile_folders(home, environ):
        try:
            prefs = read_prefs((profile / "prefs.js").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        chosen = prefs.get(DATA_DIR_PREF)
        if isinstance(chosen, str) and chosen and prefs.get(USE_DATA_DIR_PREF, True) is not False:
            found.append(Found(Path(chosen).expanduser(), f"Zotero's settings, {profile}"))
    found.append(Found(home / "Zotero", "Zotero's default place"))
    unique: dict[Path, Found] = {}
    for place in found:
        if is_data_dir(place.path):
            unique.setdefault(place.path.resolve(), place)
    return list(unique.values())


def auto_exports(data_dir: Path) -> list[Found]:
    """Better BibTeX's auto-exports of this data directory that citeloom reads and that are
    on disk, in the order Better BibTeX lists them."""
    database = data_dir / BBT_DATABASE
    if not database.is_file():
        return []
    try:
        with snapshot(database) as db:
            exports = list(_exports(db))
    except (ReferencesError, sqlite3.DatabaseError):
        return []  # no auto-export settings to offer; the user can name the file
    how = "Better BibTeX's auto-export"
    return [
        Found(path, f"{how}, {translator}")
        for path, translator in exports
        if translator in READABLE_TRANSLATORS and path.is_file()
    ]


def _exports(db: sqlite3.Connection) -> Iterator[tuple[Path, str]]:
    tables = {str(r[0]).lower() for r in db.execute("SELECT name FROM sqlite_master")}
    if "autoexport" in tables:
        for row in db.execute("SELECT path, translatorID FROM autoexport ORDER BY rowid"):
            yield Path(str(row["path"])).expanduser(), _translator(row["translatorID"])
    if "better-bibtex" in tables:
        rows = db.execute(
            'SELECT data FROM "better-bibtex" WHERE lower(name) = ?', ("better-bibtex.autoexport",)
        )
        for (data,) in rows:
            yield from _loki_exports(data)


def _loki_exports(data: object) -> Iterator[tuple[Path, str]]:
    try:
        collection = json.loads(str(data))
    except json.JSONDecodeError:
        return
    records: Iterable[object] = collection.get("data", []) if isinstance(collection, dict) else []
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("path"), str):
            yield Path(record["path"]).expanduser(), _translator(record.get("translatorID"))


def _translator(value: object) -> str:
    name = str(value or "")
    return _TRANSLATOR_IDS.get(name, name)
