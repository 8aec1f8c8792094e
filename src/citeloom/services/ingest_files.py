"""Which files an ingest run reads: the files and folders given (searched recursively), the
library's PDF attachments when the run ingests the library, and the paths refused before the
run because reading them would never end (a pipe, a device, a socket)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from citeloom.domain.errors import ConfigError
from citeloom.domain.library_files import LibraryAttachment
from citeloom.ports import LibraryFiles
from citeloom.services.ingest_report import DocumentOutcome
from citeloom.services.ingest_state import not_a_document


def discover(paths: Sequence[Path], supports: Callable[[Path], bool]) -> list[Path]:
    """Files named directly, plus supported files found recursively in folders, sorted and
    without duplicates. A path that does not exist is a usage error, not a failed document."""
    found: dict[Path, None] = {}
    for given in paths:
        # stored absolute, so that renames, changes and --prune are recognised whatever the
        # folder citeloom is run from (symlinks are kept: the path is the one the user sees)
        path = given.absolute()
        if not path.exists():
            raise ConfigError(f"{given}: no such file or folder. Check the path you passed.")
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                # a dangling link is reported as unreadable rather than silently skipped
                entry = child.is_file() or (child.is_symlink() and not child.exists())
                if entry and not child.name.startswith(".") and supports(child):
                    found[child] = None
        else:
            found[path] = None
    return list(found)


def refuse_unreadable(paths: Sequence[Path]) -> tuple[list[Path], list[DocumentOutcome]]:
    """The paths given that can be ingested, and a failed outcome for each that is a pipe, a
    device or a socket (``not_a_document``). Meant to run before the index is opened, so that
    such a path never holds it; the others of the batch still go in."""
    kept: list[Path] = []
    refused: list[DocumentOutcome] = []
    for given in paths:
        reason = not_a_document(given)
        if reason is None:
            kept.append(given)
        else:
            path = str(given.absolute())
            refused.append(DocumentOutcome(path=path, status="failed", error=f"{path}: {reason}"))
    return kept, refused


def run_files(
    paths: Sequence[Path],
    supports: Callable[[Path], bool],
    library: LibraryFiles | None = None,
    allow_empty: bool = False,
) -> tuple[list[Path], list[LibraryAttachment]]:
    """The files of a run (``discover``), then the ``library``'s attachments not among them,
    and the attachments it cannot ingest, each with the reason. No file at all is an error
    naming where citeloom looked, unless ``allow_empty`` (``watch``: everything was deleted)."""
    files = discover(paths, supports)
    skipped: list[LibraryAttachment] = []
    if library is not None:
        attached = library.attachments()
        skipped = [a for a in attached if a.skipped is not None]
        known = set(files)
        files += [p for a in attached if a.skipped is None and (p := Path(a.path)) not in known]
        if not files and not allow_empty:
            raise ConfigError(
                f"{library.root}: the Zotero library holds no PDF attachment citeloom can "
                "read. Add PDFs to its items in Zotero, or let Zotero download them."
            )
    if not files and not allow_empty:
        raise ConfigError(
            f"{', '.join(str(p) for p in paths)}: no PDF, DOCX, HTML, Markdown or text "
            "files found. Check the path, or put the documents there."
        )
    return files, skipped


def check_citekey(citekey: str, files: Sequence[Path], citekeys: Iterable[str]) -> None:
    """``--citekey`` names the library entry of one file, and the library must hold it."""
    if len(files) != 1:
        raise ConfigError(
            f"--citekey names the entry of one file, but {len(files)} files were given. "
            "Pass a single file, or name files after their citekeys."
        )
    if citekey not in set(citekeys):
        raise ConfigError(
            f"--citekey {citekey}: no entry with this citekey in the project's references. "
            "Check the spelling or export the library again."
        )
