"""The project's library: CSL-JSON as Better BibTeX exports it (or BibTeX, read into the
same entries by ``bibtex_references``), matched DOI first.

Loading is strict about structure (a malformed file fails with its path and the JSON path of
the problem) and lenient about content (literal names, particles, date literals, upper-case
and short DOIs all load).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from rapidfuzz import fuzz

from citeloom.domain.citekeys import KeyClaim, LibraryProblem, shared_key_problem, shared_keys
from citeloom.domain.errors import ReferencesError
from citeloom.domain.library_format import binary_offset, is_bibtex, utf16_mark
from citeloom.domain.matching import (
    TitleCandidate,
    arxiv_id_of_doi,
    arxiv_id_of_field,
    decide_title_match,
    find_arxiv_ids,
    find_bare_arxiv_ids,
    find_dois,
    normalise_doi,
)
from citeloom.domain.models import (
    BlockKind,
    Candidate,
    ConvertedDocument,
    MatchKind,
    MetadataMatch,
    Reference,
    Resemblance,
)
from citeloom.domain.page_labels import pages_choice
from citeloom.domain.reference_lists import is_reference_heading
from citeloom.domain.relations import DOCUMENT_TITLE
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


def _field(entry: dict[str, Any], name: str) -> Any:
    """A CSL variable in any case: Zotero writes ``DOI``, other tools ``doi``."""
    if name in entry:
        return entry[name]
    return next((v for k, v in entry.items() if k.lower() == name.lower()), None)


def _doi(entry: dict[str, Any]) -> str | None:
    value = _field(entry, "DOI")
    return normalise_doi(value) if isinstance(value, str) else None


def _page(entry: dict[str, Any]) -> str | None:
    value = entry.get("page")
    if isinstance(value, int):
        return str(value)
    return value.strip() or None if isinstance(value, str) else None


def _arxiv(entry: dict[str, Any]) -> str | None:
    if from_doi := arxiv_id_of_doi(_doi(entry)):
        return from_doi
    for key in ("arXiv", "eprint", "number", "URL", "note", "archive_location"):
        value = entry.get(key)
        if isinstance(value, str):
            found = arxiv_id_of_field(value)
            if found is None and key in ("arXiv", "eprint") and value.strip():
                found = next(iter(find_arxiv_ids(f"arXiv:{value.strip()}")), None)
            if found:
                return found
    return None


_ARXIV_VERSION = re.compile(r"(?:\d{4}\.\d{4,5}|/\d{7})v(\d+)\b", re.IGNORECASE)


def _arxiv_version(entry: dict[str, Any]) -> int | None:
    """The arXiv version an entry names ("arXiv:2501.10120v2", ".../abs/2501.10120v2")."""
    for key in ("arXiv", "eprint", "number", "URL", "DOI", "archive_location"):
        value = _field(entry, key)
        if isinstance(value, str) and (match := _ARXIV_VERSION.search(value)):
            return int(match[1])
    return None


def _text(entry: dict[str, Any], name: str) -> str | None:
    value = _field(entry, name)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    return value.strip() or None if isinstance(value, str) else None


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
        doi=_doi(entry),
        url=entry.get("URL") if isinstance(entry.get("URL"), str) else None,
        arxiv_id=_arxiv(entry),
        container_title=entry.get("container-title")
        if isinstance(entry.get("container-title"), str)
        else None,
        page=_page(entry),
        entry_id=str(entry["id"]).strip() if isinstance(entry.get("id"), str | int) else None,
        tags=_strings(entry.get("keyword")),
        collections=_strings(entry.get("collections")),
        csl_type=_text(entry, "type"),
        genre=_text(entry, "genre"),
        publisher=_text(entry, "publisher"),
        archive=_text(entry, "archive"),
        note=_text(entry, "note"),
        status=_text(entry, "status"),
        edition=_text(entry, "edition"),
        arxiv_version=_arxiv_version(entry),
        pages_choice=pages_choice(_text(entry, "note")),
    )


def load_references(path: Path, cache_dir: Path | None = None) -> list[Reference]:
    return read_library(path, cache_dir).references


class LibraryFile(NamedTuple):
    format: str  # "CSL-JSON" or "BibTeX"
    references: list[Reference]
    sha256: str  # of the bytes these entries were read from


_NOT_FOUND_FIX = (
    "Export your Zotero library with Better BibTeX (as 'Better CSL JSON', 'Better BibLaTeX' or "
    "'Better BibTeX') to this path, or fix references in the config."
)


def read_library(path: Path, cache_dir: Path | None = None) -> LibraryFile:
    """The library's format ("CSL-JSON" or "BibTeX", told by the file's content and name)
    and its entries: a ``.bib`` entry is turned into the CSL-JSON item it stands for and read
    by ``parse_entry`` like any other, so both formats give the same records. ``cache_dir``:
    where a ``.bib`` is kept parsed (``bibtex_cache``); None reads it every time."""
    if not path.is_file():
        raise ReferencesError(f"{path}: references file not found. {_NOT_FOUND_FIX}")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ReferencesError(
            f"{path}: cannot be read ({error.strerror or error}). Make it readable by this "
            "user, or fix references in the config."
        ) from error
    text = _library_text(path, data)
    sha256 = hashlib.sha256(data).hexdigest()
    if is_bibtex(path, text):
        from citeloom.adapters.bibtex_cache import bibtex_items

        items = bibtex_items(path, text, sha256, cache_dir)
        return LibraryFile("BibTeX", _parse_entries(path, items, "entry"), sha256)
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReferencesError(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}). "
            "Export it again from Zotero as 'Better CSL JSON'."
        ) from error
    if isinstance(loaded, dict) and isinstance(loaded.get("items"), list):
        loaded, root = loaded["items"], "$.items"
    else:
        root = "$"
    if not isinstance(loaded, list):
        raise ReferencesError(
            f"{path}: {root} must be a list of CSL-JSON entries, got {type(loaded).__name__}."
        )
    return LibraryFile("CSL-JSON", _parse_entries(path, loaded, root), sha256)


def _library_text(path: Path, data: bytes) -> str:
    """A library file's bytes as text (UTF-8, a byte order mark dropped, line ends as
    Python's text files read them), or the one message that says why they are none: binary
    data (no library, though pybtex would read it as an empty one) or another encoding, each
    at its line."""
    if not utf16_mark(data) and (at := binary_offset(data)) is not None:
        line = data.count(b"\n", 0, at) + 1
        raise ReferencesError(
            f"{path}: binary data, not a library (a control byte {data[at]:#04x} at line "
            f"{line}). {_NOT_FOUND_FIX}"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[start : error.start].decode("utf-8", "replace")) + 1
        where = f"line {line}, column {column}: byte {data[error.start]:#04x}"
        raise ReferencesError(
            f"{path}: cannot be read as UTF-8 ({where} is not UTF-8). Save or export it as UTF-8."
        ) from error
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parse_entries(path: Path, data: list[Any], root: str) -> list[Reference]:
    refs = []
    for number, entry in enumerate(data):
        where = f"{root}[{number}]" if root.startswith("$") else f"{root} #{number + 1}"
        try:
            refs.append(parse_entry(entry, where))
        except ValueError as error:
            raise ReferencesError(f"{path}: {error}. Fix that entry or export again.") from error
    return refs


def title_score(a: str, b: str) -> float:
    """Similarity in [0, 1] of two folded titles; robust to word order and small edits."""
    if not a or not b:
        return 0.0
    return max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b)) / 100.0


# "Title: Subtitle", "Title - Subtitle", "Title? Subtitle" as printed on page 1
_SUBTITLE = re.compile(r"\s*(?::|\?|\s[-\u2013\u2014]\s)\s*")


def main_title(title: str) -> str | None:
    """The part of a printed title before its subtitle, if it has one of at least 3 words."""
    parts = _SUBTITLE.split(title, maxsplit=1)
    if len(parts) < 2 or len(parts[0].split()) < 3:
        return None
    return parts[0]


def page_title_score(printed: str, entry: str) -> float:
    """How well the title printed on page 1 matches a library entry's title (as written).

    Libraries often keep only the main title ("Title") of a paper that prints "Title:
    Subtitle"; such an entry is compared with the printed main title too. An entry that has
    a subtitle of its own is compared whole only, so two entries sharing a main title
    ("PaSa: An LLM Agent for ...") are still told apart by their subtitles."""
    folded = fold_for_match(entry)
    score = title_score(fold_for_match(printed), folded)
    main = main_title(printed)
    if main is not None and _SUBTITLE.search(entry) is None:
        score = max(score, title_score(fold_for_match(main), folded))
    return score


def hint_citekey(stem: str, refs: dict[str, Reference]) -> str | None:
    """A citekey at the start of a file name: 'smith2020', 'smith2020 - Title', 'Smith2020_x'."""
    head = re.split(r"\s+[-–—]\s+|\s+|_-_", stem.strip(), maxsplit=1)[0]
    for candidate in (stem.strip(), head):
        if candidate in refs:
            return candidate
        folded = [key for key in refs if key.casefold() == candidate.casefold()]
        if len(folded) == 1:
            return folded[0]
    return None


_REFERENCE_ENTRY = re.compile(r"^\s*(\[\d+\]|\d+\.\s+[A-Z][a-z]+,)")


def _lines_before_references(document: ConvertedDocument, pages: int) -> list[str]:
    """The text blocks of the first ``pages`` pages, up to a reference list."""
    parts = []
    for block in document.blocks:
        if block.page is not None and block.page > pages:
            break
        if block.kind is BlockKind.HEADING and is_reference_heading(block.text):
            break
        if not _REFERENCE_ENTRY.match(block.text):
            parts.append(block.text)
    return parts


def _text_before_references(document: ConvertedDocument, pages: int) -> str:
    return "\n".join(_lines_before_references(document, pages))


# a block longer than this is a paragraph, never a title
_TITLE_CHARS = 400


def printed_title_score(title: str, lines: list[str], text: str) -> float:
    """How well an entry's title is printed somewhere in the first pages: as a block of its
    own (past a cover page, the title is the first page's heading, not page 1's), or, for a
    title of six words or more, anywhere in their text (a scan with no title block)."""
    best = max(
        (page_title_score(line, title) for line in lines if len(line) <= _TITLE_CHARS),
        default=0.0,
    )
    if len(title.split()) >= 6:
        best = max(best, fuzz.partial_ratio(fold_for_match(title), text) / 100.0)
    return best


def _names_on_page(ref: Reference, page: str) -> float:
    names = [fold_for_match(n) for n in ref.family_names[:6] if len(n) > 1]
    if not names:
        return 0.0
    words = f" {page} "
    return sum(f" {name} " in words for name in names) / len(names)


class CslMetadataResolver:
    def __init__(
        self,
        path: Path,
        threshold: float = 0.8,
        margin: float = 0.05,
        cache_dir: Path | None = None,
    ) -> None:
        """``cache_dir``: where a ``.bib`` library is kept parsed (``bibtex_cache``)."""
        self.path = path
        self.cache_dir = cache_dir
        self.threshold = threshold
        self.margin = margin
        self._refs: list[Reference] | None = None
        self._fingerprint: str | None = None
        self._problems: list[LibraryProblem] = []
        self._format = "CSL-JSON"

    def references(self) -> list[Reference]:
        """The entries with a key of their own; those claiming a key another entry claims
        too are left out (``problems`` names them): none of them owns it."""
        if self._refs is None:
            library = read_library(self.path, self.cache_dir)
            self._format, refs = library.format, library.references
            claims = [
                KeyClaim(r.citekey, f"entry #{n} of {self.path.name}", r.title, self.path.name)
                for n, r in enumerate(refs, start=1)
            ]
            shared = shared_keys(claims)
            self._problems = [
                shared_key_problem(
                    key,
                    found,
                    f"give each entry its own key in your reference manager and export "
                    f"{self.path.name} again",
                )
                for key, found in sorted(shared.items())
            ]
            self._refs = [r for r in refs if r.citekey not in shared]
            self._fingerprint = library.sha256[:16]
        return self._refs

    @property
    def format_name(self) -> str:
        """The file's format: "CSL-JSON" or "BibTeX" (BibLaTeX included)."""
        self.references()
        return self._format

    def problems(self) -> list[LibraryProblem]:
        """What is wrong with the file's citation keys (keys several entries claim)."""
        self.references()
        return list(self._problems)

    @property
    def fingerprint(self) -> str:
        """Identity of the library's content: stored documents are re-labelled when it changes."""
        self.references()
        assert self._fingerprint is not None
        return self._fingerprint

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch:
        match = self._resolve(document, hint)
        if match.reference is None:
            return match
        return replace(match, also=self._also_fits(document, match.reference))

    def _resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch:
        refs = self.references()
        by_key = {r.citekey: r for r in refs}
        if hint and (key := hint_citekey(hint, by_key)):
            return MetadataMatch(by_key[key], "hint", 1.0)
        identified = self._identified(document, refs)
        if len(identified) == 1:
            ref, kind = identified[0]
            return MetadataMatch(ref, kind, 1.0)
        if len(identified) > 1:
            return self._one_of(identified, document)
        return self._by_title(document, refs, by_key)

    def _also_fits(
        self, document: ConvertedDocument, matched: Reference
    ) -> tuple[Resemblance, ...]:
        """Other entries whose title page 1 prints, with at least half of their authors:
        another version of the same work (``domain.relations`` decides which)."""
        if not document.title:
            return ()
        page = fold_for_match(document.front_text(pages=1))
        found = []
        for ref in self.references():
            if ref.citekey == matched.citekey or not ref.title:
                continue
            score = page_title_score(document.title, ref.title)
            if score < DOCUMENT_TITLE:
                continue
            authors = _names_on_page(ref, page)
            if authors >= 0.5:
                found.append(Resemblance(ref.citekey, round(score, 3), round(authors, 3)))
        return tuple(sorted(found, key=lambda r: (-r.score, r.citekey))[:5])

    @staticmethod
    def _identified(
        document: ConvertedDocument, refs: list[Reference]
    ) -> list[tuple[Reference, MatchKind]]:
        """Library entries whose DOI or arXiv id the first two pages print (outside their
        reference list: a cited paper is not this one), their running heads, footers and
        margins (with the words the layout put inside a picture there, as a DOI beside a
        publisher's logo), or the PDF metadata; and arXiv ids page 1 prints bare
        (``hep-ph/9412269`` as an old preprint's stamp)."""
        text = "\n".join(
            [
                _text_before_references(document, pages=2),
                document.margin_text,
                *document.pdf_metadata.values(),
            ]
        )
        page_one = "\n".join([_text_before_references(document, pages=1), document.margin_text])
        by_doi = {r.doi: r for r in refs if r.doi}
        by_arxiv = {r.arxiv_id: r for r in refs if r.arxiv_id}
        found: dict[str, tuple[Reference, MatchKind]] = {}
        for doi in find_dois(text):
            if doi in by_doi:
                found.setdefault(by_doi[doi].citekey, (by_doi[doi], "doi"))
        for arxiv_id in [*find_arxiv_ids(text), *find_bare_arxiv_ids(page_one)]:
            if arxiv_id in by_arxiv:
                found.setdefault(by_arxiv[arxiv_id].citekey, (by_arxiv[arxiv_id], "arxiv"))
        return list(found.values())

    def _one_of(
        self, identified: list[tuple[Reference, MatchKind]], document: ConvertedDocument
    ) -> MetadataMatch:
        """Several entries' identifiers are printed (a paper citing another in its text): the
        page-1 title decides, with the same threshold and margin as a title match."""
        scored = sorted(
            ((page_title_score(document.title or "", r.title), r, kind) for r, kind in identified),
            key=lambda item: (-item[0], item[1].citekey),
        )
        candidates = tuple(Candidate(r.citekey, round(s, 3)) for s, r, _ in scored[:3])
        best, ref, kind = scored[0]
        if best >= self.threshold and best - scored[1][0] >= self.margin:
            return MetadataMatch(ref, kind, 1.0, candidates)
        return MetadataMatch(None, None, None, candidates, "MetadataAmbiguous")

    def _by_title(
        self, document: ConvertedDocument, refs: list[Reference], by_key: dict[str, Reference]
    ) -> MetadataMatch:
        """The page-1 title block against every entry's title; when there is none, or it
        names no entry (a cover page, a repository's sheet, a preprint series' front page
        before the paper), the entry titles printed on the first two pages instead, never in
        a reference list, with the authors and year looked for on those pages."""
        block = None
        if document.title:
            scores = [(r, page_title_score(document.title, r.title)) for r in refs if r.title]
            block = self._decide(scores, document.front_text(pages=1), by_key)
            if block.reference is not None or block.problem == "MetadataAmbiguous":
                return block
        lines = _lines_before_references(document, pages=2)
        text = fold_for_match("\n".join(lines))
        scores = [(r, printed_title_score(r.title, lines, text)) for r in refs if r.title]
        printed = self._decide(scores, "\n".join([*lines, document.margin_text]), by_key)
        return printed if block is None or printed.reference is not None else block

    def _decide(
        self, scores: list[tuple[Reference, float]], front: str, by_key: dict[str, Reference]
    ) -> MetadataMatch:
        """Title scores with the page evidence of ``front`` (authors, year): a title match,
        or none with the best candidates (``domain.matching.decide_title_match``)."""
        page = fold_for_match(front)
        years = set(re.findall(r"(?<!\d)(1[6-9]\d\d|20\d\d)(?!\d)", page))
        ranked = sorted(
            (
                TitleCandidate(
                    citekey=r.citekey,
                    score=score,
                    authors_found=_names_on_page(r, page),
                    authors_known=bool(r.family_names),
                    year_found=r.year is not None and str(r.year) in years,
                )
                for r, score in scores
            ),
            key=lambda c: (-c.score, c.citekey),
        )
        decision = decide_title_match(
            ranked, self.threshold, self.margin, page_has_names=len(page) >= 200
        )
        top = tuple(Candidate(c.citekey, round(c.score, 3)) for c in ranked[:3])
        if decision.accepted is None:
            return MetadataMatch(None, None, None, top, decision.problem)  # type: ignore[arg-type]
        ref = by_key[decision.accepted.citekey]
        return MetadataMatch(ref, "title", round(decision.accepted.score, 3), top)
