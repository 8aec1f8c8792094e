"""What ``citeloom init`` finds on this machine before it asks: Zotero's data directories,
library files (Better BibTeX's auto-exports first, then ``.bib`` and CSL JSON files in the
places people keep them) and folders of papers.

Every look is bounded (a few folder levels, a few thousand entries a folder) and reads at most
the head of a file: ``init`` answers at once in a home folder of any size. A guess is only
offered; the user confirms or replaces it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from citeloom.adapters.zotero.locate import Found, auto_exports, data_dirs
from citeloom.domain.library_format import BIB_SUFFIXES

# folder names a researcher's PDFs go under (compared in lower case)
PAPER_FOLDERS = frozenset(
    {"papers", "pdfs", "pdf", "literature", "articles", "readings", "reading", "library"}
)
_ENTRIES_A_FOLDER = 5000  # entries looked at in one folder, at most
_PDFS_COUNTED = 1000  # a folder with more is "1000+ PDFs"
_HEAD = 65536  # bytes of a .json file read to tell whether it is CSL JSON
# never looked into: tools' folders, caches, Zotero's own storage
_SKIPPED = frozenset({"node_modules", "storage", "__pycache__", "site-packages", "var", ".venv"})


@dataclass
class Discovery:
    """What was found, best guess first in each list."""

    zotero: list[Found] = field(default_factory=list)
    references: list[Found] = field(default_factory=list)
    papers: list[Found] = field(default_factory=list)


def discover(
    folder: Path, home: Path, environ: Mapping[str, str], zotero: Path | None = None
) -> Discovery:
    """What ``init`` offers for a config in ``folder``; ``zotero``: the data directory the
    user named (its auto-exports are offered first), else those found."""
    found = Discovery(zotero=data_dirs(home, environ))
    libraries = [zotero] if zotero is not None else [z.path for z in found.zotero]
    found.papers = _papers(folder, home)
    references = [export for data_dir in libraries for export in auto_exports(data_dir)]
    places = [(folder, 2), *[(p.path, 1) for p in found.papers[:2]]]
    places += [(data_dir, 0) for data_dir in libraries]
    places += [(home, 0), (home / "Documents", 1)]
    for place, depth in places:
        references += [Found(path, "a library file there") for path in _library_files(place, depth)]
    found.references = _unique(references)
    return found


def count_pdfs(folder: Path) -> int:
    """PDFs under ``folder`` (recursively), counted up to ``_PDFS_COUNTED`` and one more."""
    count = 0
    for _root, _dirs, files in os.walk(folder):
        count += sum(name.lower().endswith(".pdf") for name in files)
        if count > _PDFS_COUNTED:
            break
    return count


def pdfs_phrase(count: int) -> str:
    if count > _PDFS_COUNTED:
        return f"{_PDFS_COUNTED}+ PDFs"
    return f"{count} PDF" + ("" if count == 1 else "s")


def is_csl_json(path: Path) -> bool:
    """Whether a ``.json`` file opens as a CSL-JSON list of entries (Better CSL JSON), not
    Better BibTeX's own JSON or any other JSON document."""
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD).decode("utf-8-sig", errors="ignore").lstrip()
    except OSError:
        return False
    return head.startswith("[") and ('"id"' in head or head[1:].lstrip().startswith("]"))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            out = []
            for entry in entries:
                out.append(entry)
                if len(out) >= _ENTRIES_A_FOLDER:
                    break
            return sorted(out, key=lambda e: e.name.lower())
    except OSError:
        return []


def _subfolders(folder: Path) -> Iterator[Path]:
    for entry in _entries(folder):
        name = entry.name
        if name.startswith(".") or name in _SKIPPED:
            continue
        try:
            if entry.is_dir():
                yield Path(entry.path)
        except OSError:
            continue


def _library_files(folder: Path, depth: int) -> Iterator[Path]:
    """``.bib`` files and CSL JSON files in ``folder`` and ``depth`` levels below it."""
    for entry in _entries(folder):
        path = Path(entry.path)
        suffix = path.suffix.lower()
        try:
            is_file = entry.is_file()
        except OSError:
            continue
        if is_file and (suffix in BIB_SUFFIXES or (suffix == ".json" and is_csl_json(path))):
            yield path
    if depth > 0:
        for sub in _subfolders(folder):
            yield from _library_files(sub, depth - 1)


def _papers(folder: Path, home: Path) -> list[Found]:
    """Folders of PDFs: one named like a papers folder in the config's folder or home (or
    its Documents), then the config's folder itself when it holds PDFs."""
    candidates = [
        sub
        for place in (folder, home, home / "Documents")
        for sub in _subfolders(place)
        if sub.name.lower() in PAPER_FOLDERS
    ]
    candidates.append(folder)
    found = []
    for candidate in dict.fromkeys(c.resolve() for c in candidates):
        count = count_pdfs(candidate) if candidate != folder.resolve() else _top_pdfs(candidate)
        if count:
            found.append(Found(candidate, pdfs_phrase(count)))
    return found


def _top_pdfs(folder: Path) -> int:
    """PDFs directly in ``folder``: the config's own folder is not searched deep (it may be
    the home folder)."""
    return sum(e.name.lower().endswith(".pdf") for e in _entries(folder))


def _unique(found: list[Found]) -> list[Found]:
    seen: dict[Path, Found] = {}
    for place in found:
        seen.setdefault(place.path.resolve(), place)
    return list(seen.values())
