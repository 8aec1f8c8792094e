"""Filtering by the library's collections and tags, as a Zotero user means them.

A collection is written as its path from the top, names joined by ``/``: ``Thesis/Chapter 2``.
A slash inside a name is written ``\\/`` (and a backslash ``\\\\``), so a top-level collection
literally named "Thesis/Chapter 2" (``Thesis\\/Chapter 2``) is never taken for Chapter 2 of
Thesis. Asking for a collection includes its sub-collections, as Zotero's "Show Items from
Subcollections" does, and names match whatever their case.

A name the library does not have is an error naming those it has: an empty result would look
like "the library says nothing about it", when the filter merely had a typo.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from citeloom.domain.errors import ConfigError

_SEPARATOR = re.compile(r"(?<!\\)((?:\\\\)*)/")  # a slash not escaped by a backslash
_ESCAPED = re.compile(r"\\(.)")
SHOWN = 30  # names listed in an error, at most


def escape_name(name: str) -> str:
    """One collection's name as a path part: ``\\`` and ``/`` escaped."""
    return name.replace("\\", "\\\\").replace("/", "\\/")


def collection_path(names: Iterable[str]) -> str:
    """A collection's path from the top: ``Thesis/Chapter 2``."""
    return "/".join(escape_name(name) for name in names)


def path_names(path: str) -> tuple[str, ...]:
    """The names a path is made of, unescaped; empty parts (a leading, trailing or doubled
    slash) are dropped."""
    parts: list[str] = []
    rest = path
    while match := _SEPARATOR.search(rest):
        parts.append(rest[: match.start()] + match.group(1))
        rest = rest[match.end() :]
    parts.append(rest)
    return tuple(n for p in parts if (n := _ESCAPED.sub(r"\1", p).strip()))


def _folded(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _key(path: str) -> tuple[str, ...]:
    return tuple(_folded(name) for name in path_names(path))


def expand_collections(asked: Sequence[str], stored: Iterable[str]) -> tuple[str, ...]:
    """The stored collection paths a filter on ``asked`` selects: each one asked for and
    every one under it, whatever the case. ``ConfigError`` names an unknown one and lists
    the collections there are (those holding the project's papers, and their parents)."""
    paths = sorted(set(stored))
    chosen: dict[str, None] = {}
    for wanted in asked:
        key = _key(wanted)
        found = [p for p in paths if key and _key(p)[: len(key)] == key]
        if not found:
            known = {
                collection_path(names[:n])
                for names in map(path_names, paths)
                for n in range(1, len(names) + 1)
            }
            raise ConfigError(
                f'collection "{wanted}" is not one of the project\'s collections; they are: '
                f"{_listed(sorted(known))}. A collection includes its sub-collections "
                "and names match whatever their case; write a slash inside a name as \\/."
            )
        chosen.update(dict.fromkeys(found))
    return tuple(chosen)


def expand_tags(asked: Sequence[str], stored: Iterable[str]) -> tuple[str, ...]:
    """The stored tags a filter on ``asked`` selects, whatever the case; ``ConfigError``
    names an unknown one and lists the tags there are."""
    tags = sorted(set(stored))
    chosen: dict[str, None] = {}
    for wanted in asked:
        found = [t for t in tags if _folded(t) == _folded(wanted)]
        if not found:
            raise ConfigError(
                f'tag "{wanted}" is not one of the project\'s tags; they are: {_listed(tags)}.'
            )
        chosen.update(dict.fromkeys(found))
    return tuple(chosen)


def _listed(names: Sequence[str]) -> str:
    if not names:
        return "none (no stored paper has any)"
    shown = ", ".join(f'"{n}"' for n in names[:SHOWN])
    return f"{shown} and {len(names) - SHOWN} more" if len(names) > SHOWN else shown
