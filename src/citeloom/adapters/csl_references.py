"""The project's library: CSL-JSON as Better BibTeX exports it, matched DOI first.

Loading is strict about structure (a malformed file fails with its path and the JSON path of
the problem) and lenient about content (literal names, particles, date literals, upper-case
and short DOIs all load).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from citeloom.domain.errors import ReferencesError
from citeloom.domain.matching import decide_title_match, find_dois, normalise_doi
from citeloom.domain.models import Candidate, ConvertedDocument, MetadataMatch, Reference
from citeloom.domain.text import fold_for_match

_YEAR = re.compile(r"(?<!\d)(-?\d{1,4})(?!\d)")


def _name(person: Any, where: str) -> str:
    if not isinstance(person, dict):
        raise ValueError(f"{where}: expected a name object, got {type(person).__name__}")
    if person.get("literal"):
        return str(person["literal"]).strip()
    family = " ".join(
        str(part).strip()
        for part in (person.get("non-dropping-particle"), person.get("family"))
        if part
    )
    given = " ".join(
        str(part).strip() for part in (person.get("given"), person.get("dropping-particle")) if part
    )
    return f"{family}, {given}" if family and given else family or given


def _year(issued: Any) -> int | None:
    if not isinstance(issued, dict):
        return None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        try:
            return int(str(parts[0][0]))
        except ValueError:
            return None
    for key in ("literal", "raw"):
        if isinstance(issued.get(key), str) and (match := _YEAR.search(issued[key])):
            return int(match.group(1))
    return None


def _arxiv(entry: dict[str, Any]) -> str | None:
    for key in ("arXiv", "number", "URL", "note"):
        value = entry.get(key)
        if isinstance(value, str) and (match := _ARXIV.search(value)):
            return match.group(1)
    return None


_ARXIV = re.compile(
    r"(?:arxiv[:./\s]*(?:abs/)?)(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})", re.I
)


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return ()


def parse_entry(entry: Any, where: str) -> Reference:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    citekey = entry.get("citation-key") or entry.get("id")
    if not isinstance(citekey, str | int) or not str(citekey).strip():
        raise ValueError(f"{where}: entry has neither 'citation-key' nor 'id'")
    authors = entry.get("author", [])
    if not isinstance(authors, list):
        raise ValueError(f"{where}.author: expected a list of names")
    title = entry.get("title", "")
    if not isinstance(title, str):
        raise ValueError(f"{where}.title: expected a string")
    return Reference(
        citekey=str(citekey).strip(),
        title=title.strip(),
        authors=tuple(n for i, a in enumerate(authors) if (n := _name(a, f"{where}.author[{i}]"))),
        year=_year(entry.get("issued")),
        doi=normalise_doi(entry.get("DOI")) if isinstance(entry.get("DOI"), str) else None,
        url=entry.get("URL") if isinstance(entry.get("URL"), str) else None,
        arxiv_id=_arxiv(entry),
        container_title=entry.get("container-title")
        if isinstance(entry.get("container-title"), str)
        else None,
        tags=_strings(entry.get("keyword")),
        collections=_strings(entry.get("collections")),
    )


def load_references(path: Path) -> list[Reference]:
    if not path.is_file():
        raise ReferencesError(
            f"{path}: references file not found. Export your Zotero library with Better BibTeX "
            "as 'Better CSL JSON' to this path, or fix references_json in the config."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ReferencesError(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}). "
            "Export it again from Zotero as 'Better CSL JSON'."
        ) from error
    except (OSError, UnicodeDecodeError) as error:
        raise ReferencesError(f"{path}: cannot be read ({error}).") from error
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data, root = data["items"], "$.items"
    else:
        root = "$"
    if not isinstance(data, list):
        raise ReferencesError(
            f"{path}: {root} must be a list of CSL-JSON entries, got {type(data).__name__}."
        )
    refs = []
    for number, entry in enumerate(data):
        try:
            refs.append(parse_entry(entry, f"{root}[{number}]"))
        except ValueError as error:
            raise ReferencesError(f"{path}: {error}. Fix that entry or export again.") from error
    return refs


def title_score(a: str, b: str) -> float:
    """Similarity in [0, 1] of two folded titles; robust to word order and small edits."""
    if not a or not b:
        return 0.0
    return max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b)) / 100.0


class CslMetadataResolver:
    def __init__(self, path: Path, threshold: float = 0.8, margin: float = 0.05) -> None:
        self.path = path
        self.threshold = threshold
        self.margin = margin
        self._refs: list[Reference] | None = None

    def references(self) -> list[Reference]:
        if self._refs is None:
            self._refs = load_references(self.path)
        return self._refs

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch:
        refs = self.references()
        by_key = {r.citekey: r for r in refs}
        if hint and hint in by_key:
            return MetadataMatch(by_key[hint], "hint", 1.0)
        by_doi = {r.doi: r for r in refs if r.doi}
        front = document.front_text()
        for doi in [*find_dois(front), *find_dois(" ".join(document.pdf_metadata.values()))]:
            if doi in by_doi:
                return MetadataMatch(by_doi[doi], "doi", 1.0)
        titles = [t for t in [document.title] if t]
        folded = [fold_for_match(t) for t in titles]
        ranked = (
            sorted(
                (
                    Candidate(
                        r.citekey, max(title_score(f, fold_for_match(r.title)) for f in folded)
                    )
                    for r in refs
                    if r.title
                ),
                key=lambda c: -c.score,
            )
            if folded
            else []
        )
        decision = decide_title_match(ranked, self.threshold, self.margin)
        top = tuple(Candidate(c.citekey, round(c.score, 3)) for c in ranked[:3])
        if decision.accepted:
            return MetadataMatch(
                by_key[decision.accepted.citekey], "title", decision.accepted.score, top
            )
        return MetadataMatch(None, None, None, top, decision.problem)  # type: ignore[arg-type]
