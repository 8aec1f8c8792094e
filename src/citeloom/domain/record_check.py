"""Whether a payload from outside (an export file) is a stored record citeloom can serve.

``records.build_payload`` writes the record and ``records.passage_from_payload`` and
``records.summarise_documents`` read it back, trusting its shape. A payload that reaches the
index from a file was written by nobody citeloom can vouch for, so before it is stored it is
held to that shape: the keys every chunk carries (and the index filters on) must be there, and
every key the readers dereference must have the type they expect; otherwise a query that finds
the chunk, or ``inspect``, would fail on it long after the import said it succeeded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from citeloom.domain.notes import NOTE_FIELD

# The largest whole number a payload may hold: both engines store payload numbers as 64-bit.
MAX_INT = 2**63 - 1


def within_64_bits(value: int) -> bool:
    """A whole number the engines store: a JSON integer may have any number of digits."""
    return -MAX_INT - 1 <= value <= MAX_INT


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_resemblance(value: Any) -> bool:
    return _is_candidate(value) and isinstance(value.get("authors"), int | float)


def _is_candidate(value: Any) -> bool:
    score = value.get("score") if isinstance(value, dict) else None
    return (
        isinstance(value, dict)
        and isinstance(value.get("citekey"), str)
        and (_is_int(score) or isinstance(score, float))
    )


# kind -> (test, what the value must be, as the refusal says it)
KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "name": (lambda v: isinstance(v, str) and v != "", "a non-empty string"),
    "text": (lambda v: isinstance(v, str), "a string"),
    "text?": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "texts": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "a list of strings",
    ),
    "count": (lambda v: _is_int(v) and v >= 0, "a whole number, 0 or more"),
    "count?": (lambda v: v is None or (_is_int(v) and v >= 0), "a whole number or null"),
    "page?": (lambda v: v is None or (_is_int(v) and v >= 1), "a page number (1 or more) or null"),
    "int?": (lambda v: v is None or _is_int(v), "a whole number or null"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "kind": (lambda v: v in ("paper", "note"), '"paper" or "note"'),
    "candidates": (
        lambda v: isinstance(v, list) and all(_is_candidate(x) for x in v),
        "a list of {citekey, score}",
    ),
    "resemblances": (
        lambda v: isinstance(v, list) and all(_is_resemblance(x) for x in v),
        "a list of {citekey, score, authors}",
    ),
}

# (dotted key, kind, required): a required key must be present wherever its parent is.
RECORD_SHAPE: tuple[tuple[str, str, bool], ...] = (
    ("project", "name", True),
    ("doc_id", "name", True),
    ("chunk_index", "count", True),
    ("chunk_total", "count", False),
    ("kind", "kind", False),
    ("source", "object", True),
    ("source.path", "name", True),
    ("source.sha256", "text", False),
    ("fulltext", "text", True),
    ("doc", "object", False),
    ("doc.title", "text?", False),
    ("doc.authors", "texts", False),
    ("doc.year", "int?", False),
    ("doc.doi", "text?", False),
    ("doc.url", "text?", False),
    ("doc.page_start", "page?", False),
    ("doc.page_end", "page?", False),
    ("doc.page_count", "count?", False),
    ("doc.section", "text?", False),
    ("doc.section_path", "texts", False),
    ("doc.arxiv_stamp", "text?", False),
    ("zotero", "object", False),
    ("zotero.citekey", "text?", False),
    ("zotero.match", "text?", False),
    ("zotero.problem", "text?", False),
    ("zotero.tags", "texts", False),
    ("zotero.collections", "texts", False),
    ("zotero.candidates", "candidates", False),
    ("zotero.library", "text", False),
    ("zotero.also_fits", "resemblances", False),
    (NOTE_FIELD, "object", False),
    (f"{NOTE_FIELD}.text", "text", True),
)

_ABSENT = object()


def record_problem(payload: Any) -> str | None:
    """What keeps ``payload`` from being a stored record ("lacks source.path", "chunk_index
    is '3', not a whole number, 0 or more"), or None when it is one."""
    if not isinstance(payload, dict) or not payload:
        return "is empty" if payload == {} else f"is {shown(payload)}, not an object"
    for key, kind, required in RECORD_SHAPE:
        parent, _, name = key.rpartition(".")
        holder = _lookup(payload, parent) if parent else payload
        if not isinstance(holder, dict):
            continue  # a missing optional parent; a parent of the wrong type is named itself
        value = holder.get(name, _ABSENT)
        if value is _ABSENT:
            if required:
                return f"lacks {key}"
            continue
        test, wanted = KINDS[kind]
        if not test(value):
            return f"{key} is {shown(value)}, not {wanted}"
    return _index_problem(payload) or _number_problem(payload)


def _lookup(payload: dict[str, Any], dotted: str) -> Any:
    value: Any = payload
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _index_problem(payload: dict[str, Any]) -> str | None:
    index, total = payload["chunk_index"], payload.get("chunk_total")
    if total and index >= total:
        return f"chunk_index is {shown(index)}, but its document has {total} chunks (chunk_total)"
    return None


def _number_problem(payload: dict[str, Any]) -> str | None:
    """A number the engines cannot store: not finite, or beyond 64 bits. Walked without
    recursion, since a payload nests as deep as the file says."""
    stack: list[tuple[str, Any]] = [("", payload)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}" if key else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            return f"{key} is {value}, not a finite number"
        elif _is_int(value) and not within_64_bits(value):
            return f"{key} is {shown(value)}, a number too large to store"
    return None


def shown(value: Any) -> str:
    """A value as a refusal quotes it: short, with its JSON type where the text hides it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"{text!r} (a string)"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 40 else f"a {len(text)}-digit number"
