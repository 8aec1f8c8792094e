"""The first ``citeloom.toml`` a researcher gets from ``citeloom init``: one project over the
library they have (a Zotero data directory, a Better BibTeX export, or both) and the folder of
their papers, written with a comment on every line they may want to change.

Paths inside the config's folder are written relative to it (the folder can move), paths under
the home folder with ``~`` (the file stays readable and works for the same user elsewhere),
others as they are. Values are TOML basic strings, escaped, so a Windows path or a quote in a
folder name reads back as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath

from citeloom.domain.errors import ConfigError

# a project id: what `-p NAME` takes and what names the collection's folder
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_PROJECT = "library"


@dataclass(frozen=True)
class FirstProject:
    """What ``init`` writes: the project's name and its library, all paths absolute."""

    name: str
    zotero: Path | None = None
    references: Path | None = None
    papers: Path | None = None

    @property
    def collection(self) -> str:
        return f"proj-{self.name}"


def check_project_name(name: str) -> str:
    """The name as given, or a ``ConfigError`` saying what a name may hold."""
    if not _PROJECT.match(name):
        raise ConfigError(
            f"project name {name!r}: use letters, digits, '-', '_' or '.' (at most 64, "
            "starting with a letter or digit), e.g. --project thesis."
        )
    return name


def project_name_for(folder: PurePath, home: PurePath) -> str:
    """A name for the project of the config in ``folder``: the folder's own name made into
    an id (``~/PhD Thesis`` -> ``phd-thesis``), or ``library`` for the home folder, the root
    or a name with nothing left."""
    if folder in (home, PurePath(folder.anchor)):
        return DEFAULT_PROJECT
    slug = re.sub(r"[^a-z0-9_.]+", "-", folder.name.lower()).strip("-._")[:64].strip("-._")
    return slug or DEFAULT_PROJECT


def toml_string(value: str) -> str:
    """A TOML basic string: backslashes, quotes and control characters escaped."""
    out = []
    for char in value:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def shown_path(path: Path, folder: Path, home: Path) -> str:
    """How a path is written in the config in ``folder`` (see the module's docstring)."""
    if path.is_relative_to(folder):
        relative = path.relative_to(folder).as_posix()
        return relative or "."
    if path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return str(path)


def _line(assignment: str, comment: str) -> str:
    """A key and its comment, the comments of short lines aligned."""
    return f"{assignment:<29} # {comment}" if len(assignment) < 29 else f"{assignment}  # {comment}"


def render_config(project: FirstProject, folder: Path, home: Path) -> str:
    """The text of the config file for ``project``, to be written in ``folder``."""
    if project.zotero is None and project.references is None:
        raise ConfigError(
            "a project needs its library: name a Better BibTeX export with --references FILE "
            "(.bib or CSL JSON) or Zotero's data directory with --zotero DIR."
        )

    def path(value: Path) -> str:
        return toml_string(shown_path(value, folder, home))

    lines = [
        "# citeloom configuration, written by `citeloom init`. Relative paths resolve against",
        "# this file's folder. Every key and its default: docs/configuration.md.",
        "# Environment variables override any key: CITELOOM_<SECTION>__<KEY>.",
        "",
        "[paths]",
    ]
    ingest = "what `citeloom ingest` reads without paths"
    if project.papers is not None:
        lines.append(_line(f"raw_dir = {path(project.papers)}", ingest))
    else:
        lines.append(_line('# raw_dir = "papers"', ingest))
    lines += [
        _line('index_dir = "var/qdrant"', "the index (embedded Qdrant Edge, no server)"),
        _line('cache_dir = "var/cache"', "converted documents, parsed libraries"),
        _line('audit_dir = "var/audit"', "one file per ingest run"),
        "",
        f"[project.{toml_string(project.name)}]",
        f"collection = {toml_string(project.collection)}",
    ]
    if project.zotero is not None:
        lines.append(
            _line(f"zotero = {path(project.zotero)}", "Zotero's data directory: items, PDFs, notes")
        )
    if project.references is not None:
        lines.append(
            _line(
                f"references = {path(project.references)}", "Better BibTeX export: .bib or CSL JSON"
            )
        )
    lines += [
        _line('# embedding_model = "fastembed/all-MiniLM-L6-v2-fp32"', "the default, offline"),
        _line('# languages = ["english"]', 'what BM25 stems, e.g. ["german", "english"]'),
        "",
    ]
    return "\n".join(lines)
