"""The project's relations file: what the user knows of versions, supersession, retractions
and conflicts that cannot be inferred from the library (``relations = "..."`` in the
project's config). TOML, like the config: one array of tables per kind, every relation with
a reason. ``docs/relations.md`` describes it.

```toml
[[version_of]]              # a version of the same work as its version of record
version = "smith2020arxiv"
record = "smith2021"
reason = "the arXiv preprint of the JASA paper"

[[supersedes]]              # new makes old outdated (not necessarily the same work)
new = "smith2022"
old = "smith2021"
reason = "the 2022 survey repeats and corrects the 2021 one"

[[retracted]]
citekey = "doe2019"
reason = "retracted in 2021 for data fabrication"

[[conflicts_with]]
citekeys = ["lee2020", "kim2021"]
reason = "kim2021 fails to replicate lee2020's effect"

[[distinct]]                # not the same work: silences a possible relation
citekeys = ["he2024pasa", "he2025pasa"]
reason = "the conference paper and a different, later system"
```

A malformed file is refused with its path, the table and the fix (exit 2). A citekey that
is not in the library is not an error here (an entry removed from Zotero must not break
every query): the relation is kept aside and ``validate`` and ``inspect --relations`` name it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from citeloom.domain.errors import ConfigError
from citeloom.domain.relations import Relation, RelationKind

DOCS = "see docs/relations.md"
# kind -> (the keys naming its citekeys, in from/to order), every table also needs "reason"
_KEYS: dict[str, tuple[str, ...]] = {
    "version_of": ("version", "record"),
    "supersedes": ("new", "old"),
    "retracted": ("citekey",),
    "conflicts_with": ("citekeys",),
    "distinct": ("citekeys",),
}
_OPTIONAL = {"retracted": ("notice",)}


class RelationsFileError(ConfigError):
    """The relations file is missing or malformed."""


def _fail(path: Path, where: str, problem: str, fix: str) -> RelationsFileError:
    return RelationsFileError(f"{path}: {where}: {problem}. {fix} ({DOCS}).")


def _citekey(path: Path, where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, where, f"'{key}' must be a citekey (a string)", f'Write {key} = "key"')
    return value.strip().lstrip("@")


def _relations(path: Path, kind: str, number: int, table: Any) -> list[Relation]:
    where = f"[[{kind}]] #{number}"
    if not isinstance(table, dict):
        raise _fail(path, where, "not a table", f"Write it as [[{kind}]] with its keys below")
    keys = _KEYS[kind]
    allowed = {*keys, "reason", *_OPTIONAL.get(kind, ())}
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise _fail(
            path,
            where,
            f"unknown key {unknown[0]!r}",
            f"A [[{kind}]] takes {', '.join(sorted(allowed))}",
        )
    missing = [k for k in (*keys, "reason") if k not in table]
    if missing:
        raise _fail(
            path,
            where,
            f"'{missing[0]}' is missing",
            "Every relation needs a reason" if missing[0] == "reason" else f"Add {missing[0]}",
        )
    reason = table["reason"]
    if not isinstance(reason, str) or not reason.strip():
        raise _fail(path, where, "'reason' is empty", "Say why, in a few words")
    reason = reason.strip()
    relation_kind: RelationKind = kind  # type: ignore[assignment]
    if keys == ("citekeys",):
        pair = table["citekeys"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise _fail(
                path, where, "'citekeys' must list two citekeys", 'Write citekeys = ["a", "b"]'
            )
        a, b = (_citekey(path, where, "citekeys", k) for k in pair)
        if a == b:
            raise _fail(path, where, f"both citekeys are {a!r}", "Name two different entries")
        return [Relation(relation_kind, a, b, reason, "certain", "file")]
    if kind == "retracted":
        key = _citekey(path, where, "citekey", table["citekey"])
        notice = table.get("notice")
        target = _citekey(path, where, "notice", notice) if notice is not None else None
        if target == key:
            raise _fail(path, where, f"citekey and notice are both {key!r}", "Fix one")
        return [Relation("retracted", key, target, reason, "certain", "file")]
    source, target = (_citekey(path, where, k, table[k]) for k in keys)
    if source == target:
        raise _fail(path, where, f"{keys[0]} and {keys[1]} are both {source!r}", "Fix one")
    return [Relation(relation_kind, source, target, reason, "certain", "file")]


def parse_relations(path: Path, data: bytes) -> list[Relation]:
    """The relations a file declares; ``RelationsFileError`` naming the problem otherwise."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise RelationsFileError(f"{path}: not UTF-8 text ({error}). Save it as UTF-8.") from None
    except tomllib.TOMLDecodeError as error:
        raise RelationsFileError(
            f"{path}: not valid TOML ({error}). Fix the syntax there ({DOCS})."
        ) from None
    relations: list[Relation] = []
    for kind, tables in document.items():
        if kind not in _KEYS:
            raise RelationsFileError(
                f"{path}: unknown relation [[{kind}]]. Use one of "
                f"{', '.join(f'[[{k}]]' for k in _KEYS)} ({DOCS})."
            )
        if not isinstance(tables, list):
            raise _fail(path, kind, "not an array of tables", f"Write each one as [[{kind}]]")
        for number, table in enumerate(tables, start=1):
            relations.extend(_relations(path, kind, number, table))
    return relations


def read_relations(path: Path) -> tuple[list[Relation], bytes]:
    """The relations declared in ``path`` and the bytes they were read from (for the cache
    key). A missing file is a configuration error: the config names it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RelationsFileError(
            f"{path}: relations file not found. Create it ({DOCS}) or remove relations = from "
            "the project's config."
        ) from None
    except OSError as error:
        raise RelationsFileError(f"{path}: cannot be read ({error}).") from None
    return parse_relations(path, data), data
