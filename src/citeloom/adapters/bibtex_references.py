"""A BibTeX or BibLaTeX library (Better BibTeX's export, or a ``.bib`` kept by hand), read as
the CSL-JSON entries the rest of citeloom knows.

pybtex parses the file (ADR 0026): the BibTeX language itself (``@string`` macros and ``#``
concatenation, the month macros, field names in any case, names split by BibTeX's grammar
with braces protecting a corporate name and ``von`` particles). What no parser does for us:
``crossref`` inheritance as BibLaTeX defines it (an ``@inbook`` takes its ``booktitle`` from
the ``@book``'s ``title``) and turning LaTeX into text. Each entry then becomes the CSL-JSON
item citeproc would make of it and goes through ``csl_references.parse_entry``, so a ``.bib``
library and its CSL-JSON twin are matched and labelled by the same code.

Loading is strict about syntax (a malformed file fails with its path and the line, as a
malformed JSON file does) and lenient about content (missing titles, years that are words,
entries with no author all load). Two entries with one key both load: the resolver's rule
for a key several entries claim applies, as for CSL-JSON.

Loading is bounded too: ``@string`` macros that repeat each other (``s2 = s1 # s1``, forty
lines of it) make a kilobyte of BibTeX into terabytes, so every value's expanded length is
measured before pybtex joins it, and a library past the bound is refused at that line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pybtex.backends.plaintext import Backend
from pybtex.database import BibliographyData, Entry, Person
from pybtex.database.input.bibtex import LowLevelParser, Parser
from pybtex.exceptions import PybtexError
from pybtex.richtext import Text

from citeloom.domain.errors import ReferencesError
from citeloom.domain.matching import arxiv_id_of_field


# ------------------------------------------------------------------------------ parsing
class _Library(BibliographyData):
    """pybtex's data, also keeping a second entry under a key already taken (pybtex keeps
    the first only): a key two entries claim is a library problem to report, not to hide."""

    def __init__(self) -> None:
        super().__init__()
        self.in_order: list[tuple[str, Entry]] = []

    def add_entry(self, key: str, entry: Entry) -> None:
        self.in_order.append((key, entry))
        if key not in self.entries:
            super().add_entry(key, entry)


# A value (a field, an @string, an @preamble) longer than this once its macros are expanded
# is no bibliographic data: an abstract is a few kilobytes, a whole book's table of contents
# a few dozen.
VALUE_LIMIT = 1_000_000
# All values together may be at most twice the file's length and this much more: a library's
# values are its own text with a few macros (journal names) spelled out, while a kilobyte
# that expands to megabytes is built to. Each character costs memory here and, in a field,
# microseconds in LaTeX decoding (``latex_text``), so this also bounds the time a small file
# can take.
EXPANSION_FLOOR = 2_000_000


class _TooLong(Exception):
    """A value expanded past a bound: not a pybtex error, so that it ends the parse at once
    (pybtex collects its syntax errors and goes on, and what follows a refused ``@string``
    would only be undefined macros)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


class _Bounded(LowLevelParser):
    """pybtex's scanner, measuring each value before it is joined. pybtex keeps a value as
    the list of its parts, a macro's part being the macro's own string, not a copy; the
    memory is taken when the parts are joined (into the macro, or the field). So the sum of
    the parts' lengths, taken first, bounds every string the parse ever makes."""

    def __init__(self, text: str, **options: Any) -> None:
        super().__init__(text, **options)
        self.left = 2 * len(text) + EXPANSION_FLOOR
        self.budget = self.left

    def parse_value(self) -> None:
        line = self.lineno
        super().parse_value()
        length = sum(map(len, self.current_value))
        if length > VALUE_LIMIT:
            raise _TooLong(line, f"{self._value_name()} expands past 1 MB ({length:,} characters)")
        self.left -= length
        if self.left < 0:
            raise _TooLong(
                line,
                f"{self._value_name()} takes the library's values past {self.budget:,} "
                "characters together (twice the file's length, and 2 MB more)",
            )

    def _value_name(self) -> str:
        if self.current_entry_key is not None:
            return f"field {self.current_field_name} of entry {self.current_entry_key}"
        if self.current_field_name is not None:
            return f"@string {self.current_field_name}"
        return "@preamble"


class _Parser(Parser):
    """pybtex's BibTeX parser with its errors collected here, not printed or raised through
    pybtex's process-wide strict mode, and its values bounded (``_Bounded``)."""

    def __init__(self) -> None:
        super().__init__()
        self.data = _Library()
        self.errors: list[PybtexError] = []

    def handle_error(self, error: PybtexError) -> None:
        self.errors.append(error)

    def parse_string(self, text: str) -> BibliographyData:
        """pybtex's own ``Parser.parse_string`` (0.26), over ``_Bounded`` instead of the
        scanner it names inside."""
        self.unnamed_entry_counter = 1
        self.command_start = 0
        commands = _Bounded(
            text,
            keyless_entries=self.keyless_entries,
            handle_error=self.handle_error,
            want_entry=self.data.want_entry,
            filename=self.filename,
            macros=self.macros,
        )
        for command, body in commands:
            if command.lower() == "preamble":
                self.process_preamble(*body)
            elif command.lower() != "string":
                self.process_entry(command, *body)
        return self.data


def _problem(path: Path, error: PybtexError, more: int) -> str:
    line = getattr(error, "lineno", None)
    where = f"line {line}: " if line else ""
    message = re.sub(r"\s+in line \d+", "", str(error))
    also = f" ({more} more problem{'s' if more > 1 else ''} after it)" if more else ""
    return (
        f"{path}: not valid BibTeX ({where}{message}){also}. Fix the entry there, or export "
        "the library again from Zotero with Better BibTeX (BibLaTeX or BibTeX)."
    )


def parse_bibtex(path: Path, text: str) -> list[dict[str, Any]]:
    """The library's entries in file order as CSL-JSON items, ``crossref`` and ``xdata``
    resolved."""
    parser = _Parser()
    try:
        parser.parse_string(text)
    except PybtexError as error:  # what the parser cannot go on after
        parser.errors.append(error)
    except _TooLong as error:
        raise ReferencesError(
            f"{path}: line {error.line}: {error.problem}. No library holds such values: "
            "@string macros made of each other grow a small file into gigabytes. Shorten the "
            "value there or the macros it uses, or export the library again from Zotero with "
            "Better BibTeX (BibLaTeX or BibTeX)."
        ) from None
    if parser.errors:
        raise ReferencesError(_problem(path, parser.errors[0], len(parser.errors) - 1))
    library: _Library = parser.data
    return [
        csl_item(key, *_inherited(key, entry, library.entries, frozenset()))
        for key, entry in library.in_order
        if entry.type.lower() != "xdata"  # fields for other entries, never cited itself
    ]


# -------------------------------------------------------------------- crossref inheritance
# Fields a child never takes from its parent (BibLaTeX's default inheritance setup).
_NEVER = frozenset(
    (
        *("ids", "crossref", "xref", "entryset", "entrysubtype", "execute", "label"),
        *("options", "presort", "related", "relatedoptions", "relatedstring", "relatedtype"),
        *("shorthand", "shorthandintro", "sortkey", "xdata"),
    )
)
_TITLE_FIELDS = ("title", "subtitle", "titleaddon")
_BOOK = dict(zip(_TITLE_FIELDS, ("booktitle", "booksubtitle", "booktitleaddon"), strict=True))
_MAIN = dict(zip(_TITLE_FIELDS, ("maintitle", "mainsubtitle", "maintitleaddon"), strict=True))
_JOURNAL = {"title": "journaltitle", "subtitle": "journalsubtitle"}
_IN_BOOK = ("inbook", "bookinbook", "suppbook")
_IN_COLLECTION = ("incollection", "inreference", "suppcollection")
# (parent type, child type) -> where the parent's titles go in the child
_TITLES_GO: dict[tuple[str, str], dict[str, str]] = {
    **{("book", child): _BOOK for child in _IN_BOOK},
    **{(p, c): _BOOK for p in ("collection", "reference") for c in _IN_COLLECTION},
    ("proceedings", "inproceedings"): _BOOK,
    **{("periodical", c): _JOURNAL for c in ("article", "suppperiodical")},
    **{("mvbook", c): _MAIN for c in ("book", *_IN_BOOK)},
    **{
        (p, c): _MAIN
        for p in ("mvcollection", "mvreference")
        for c in ("collection", "reference", *_IN_COLLECTION)
    },
    **{("mvproceedings", c): _MAIN for c in ("proceedings", "inproceedings")},
}
_Fields = dict[str, str]
_Persons = dict[str, list[Person]]


def _inherited(
    key: str, entry: Entry, entries: Any, seen: frozenset[str]
) -> tuple[str, _Fields, _Persons]:
    """An entry's type, fields and persons with what it inherits: the fields of the
    ``@xdata`` entries it names, as if written in it (BibLaTeX), then through ``crossref`` its
    parent's titles under the names BibLaTeX gives them (a book's title is its chapter's
    ``booktitle``) and every other field and person role it lacks under the same name (as
    BibTeX does). A missing parent or a loop inherits nothing more."""
    kind = entry.type.lower()
    fields = {name.lower(): value for name, value in entry.fields.items()}
    persons = {role.lower(): list(people) for role, people in entry.persons.items()}
    seen = seen | {key.lower()}
    for name in (n.strip() for n in fields.get("xdata", "").split(",")):
        if name and name.lower() not in seen and name in entries:
            _, more, people = _inherited(name, entries[name], entries, seen)
            _take(fields, persons, more, people, {})
    parent = fields.get("crossref", "").strip()
    if parent and parent.lower() not in seen and parent in entries:
        parent_kind, more, people = _inherited(parent, entries[parent], entries, seen)
        _take(fields, persons, more, people, _TITLES_GO.get((parent_kind, kind), {}))
    return kind, fields, persons


def _take(
    fields: _Fields, persons: _Persons, more: _Fields, people: _Persons, renamed: dict[str, str]
) -> None:
    """What an entry lacks of another's fields (titles ``renamed``) and person roles."""
    for name, value in more.items():
        if name in _NEVER or (renamed and name in ("shorttitle", "sorttitle", "indextitle")):
            continue
        fields.setdefault(renamed.get(name, name), value)
    for role, names in people.items():
        persons.setdefault(role, names)


# ------------------------------------------------------------------------ LaTeX to text
_LEFT_COMMAND = re.compile(r"\\[A-Za-z]+\*?\s*")
_URL_COMMAND = re.compile(r"\\url\s*\{([^}]*)\}")
_APOSTROPHE = re.compile(r"(?<![\\'])'(?!')")
_KEPT = "\ue000"  # a private-use character holds an apostrophe through the decoder
# pybtex's plain-text backend, made once: ``render_as("text")`` looks it up among the installed
# packages' entry points on every call (90 ms each here, 8 s for ten entries)
_PLAIN_TEXT = Backend()


def latex_text(value: str) -> str:
    """A field's LaTeX as the text a reader sees: accents (``{\\"u}``, ``\\'{e}``), dashes
    and ``~`` decoded, braces and formatting commands (``\\emph``) dropped, spaces folded."""
    value = _APOSTROPHE.sub(_KEPT, value)  # LaTeX would print ’: names keep their '
    try:
        text = Text.from_latex(value).render(_PLAIN_TEXT)
    except (PybtexError, ValueError):  # what LaTeX cannot read (a stray "\}"): the letters
        text = value.replace("{", "").replace("}", "")
    return " ".join(_LEFT_COMMAND.sub("", text).replace(_KEPT, "'").split())


def _verbatim(value: str) -> str:
    """A DOI, URL or eprint as written: only BibTeX's escapes and braces removed (``%`` in
    a URL is a character, not a LaTeX comment)."""
    if match := _URL_COMMAND.search(value):
        value = match.group(1)
    return re.sub(r"\\([_%&#$~])", r"\1", value).replace("{", "").replace("}", "").strip()


def _name(person: Person) -> dict[str, str] | None:
    """A BibTeX name as a CSL name; ``others`` (BibTeX's "et al.") is none."""
    parts = {
        "family": person.last_names,
        "given": [*person.first_names, *person.middle_names],
        "non-dropping-particle": person.prelast_names,
        "suffix": person.lineage_names,
    }
    name = {k: text for k, words in parts.items() if (text := latex_text(" ".join(words)))}
    if name == {"family": "others"}:
        return None
    return name or None


# ------------------------------------------------------------------ BibLaTeX to CSL-JSON
# entry type -> CSL type, as citeproc reads BibLaTeX; an unknown type is a "document"
_TYPES = {
    "article": "article-journal",
    **dict.fromkeys(
        (
            *("book", "mvbook", "collection", "mvcollection", "proceedings", "mvproceedings"),
            *("reference", "mvreference", "manual"),
        ),
        "book",
    ),
    **dict.fromkeys([*_IN_BOOK, "incollection", "suppcollection"], "chapter"),
    "inreference": "entry-encyclopedia",
    **dict.fromkeys(["inproceedings", "conference"], "paper-conference"),
    **dict.fromkeys(["thesis", "phdthesis", "mastersthesis"], "thesis"),
    **dict.fromkeys(["report", "techreport"], "report"),
    **dict.fromkeys(["online", "electronic", "www"], "webpage"),
    "unpublished": "manuscript",
    "booklet": "pamphlet",
    "patent": "patent",
    "dataset": "dataset",
    "software": "software",
    "periodical": "periodical",
    "misc": None,
}
_GENRES = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis"}
_DATE = re.compile(r"^\s*(-?\d{1,4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")
_MONTHS = {
    m: n
    for n, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
# where an entry may name its arXiv id besides eprint (pandoc writes "number = arXiv:...")
_ARXIV_PLACES = ("number", "url", "note", "howpublished")


def _issued(fields: _Fields) -> dict[str, Any] | None:
    """BibLaTeX's ``date`` (``2008-10``, ``2010-05-03/2010-05-05``), else ``year`` and
    ``month``, as a CSL date; a year written as words stays a literal."""
    if date := fields.get("date", "").strip():
        if match := _DATE.match(date):
            return {"date-parts": [[int(p) for p in match.groups() if p]]}
        return {"literal": latex_text(date)}
    year = latex_text(fields.get("year", ""))
    if not year:
        return None
    if not year.lstrip("-").isdigit():
        return {"literal": year}
    parts = [int(year)]
    month = latex_text(fields.get("month", "")).lower()
    if month.isdigit() and 1 <= int(month) <= 12:
        parts.append(int(month))
    elif month[:3] in _MONTHS:
        parts.append(_MONTHS[month[:3]])
    return {"date-parts": [parts]}


def _first(fields: _Fields, *names: str) -> str | None:
    return next((latex_text(fields[n]) for n in names if fields.get(n, "").strip()), None)


def _with_subtitle(fields: _Fields, title: str, subtitle: str) -> str | None:
    main, sub = _first(fields, title), _first(fields, subtitle)
    return f"{main}: {sub}" if main and sub else main


def _arxiv_eprint(fields: _Fields) -> str | None:
    """The eprint an entry names when it is an arXiv one: BibLaTeX's ``eprinttype = arxiv``,
    BibTeX's ``archivePrefix = arXiv``, or an eprint of no stated kind."""
    kind = (fields.get("eprinttype") or fields.get("archiveprefix") or "arxiv").strip().lower()
    eprint = _verbatim(fields.get("eprint", ""))
    return eprint if eprint and kind == "arxiv" else None


def csl_item(key: str, kind: str, fields: _Fields, persons: _Persons) -> dict[str, Any]:
    """One BibTeX entry as the CSL-JSON item Better BibTeX would write for it: what
    ``csl_references.parse_entry`` reads, under CSL's names."""
    eprint = _arxiv_eprint(fields)
    # none for @misc, as citeproc reads it (typeless is read as "article")
    csl_type = _TYPES.get(kind, "document")
    if kind in ("online", "electronic", "www") and (
        eprint or any(arxiv_id_of_field(_verbatim(fields.get(n, ""))) for n in _ARXIV_PLACES)
    ):
        csl_type = "article"  # an arXiv preprint, as CSL types it
    if kind == "article" and fields.get("entrysubtype", "").strip() in ("magazine", "newspaper"):
        csl_type = f"article-{fields['entrysubtype'].strip()}"
    url = fields.get("url") or next(
        (fields[n] for n in ("howpublished", "note") if _URL_COMMAND.search(fields.get(n, ""))),
        "",
    )
    item: dict[str, Any] = {
        "id": key,
        "citation-key": key,
        "type": csl_type,
        "title": _with_subtitle(fields, "title", "subtitle") or "",
        "author": [n for p in persons.get("author", []) if (n := _name(p))],
        "container-title": _with_subtitle(fields, "journaltitle", "journalsubtitle")
        or _first(fields, "journal")
        or _with_subtitle(fields, "booktitle", "booksubtitle"),
        "issued": _issued(fields),
        "DOI": _verbatim(fields.get("doi", "")) or None,
        "URL": _verbatim(url) or None,
        "eprint": eprint,
        "number": _first(fields, "number"),
        "page": _first(fields, "pages"),
        "keyword": _first(fields, "keywords"),
        "publisher": _first(fields, "publisher", "institution", "school", "organization"),
        "genre": _first(fields, "type") or _GENRES.get(kind),
        "archive": _first(fields, "archive"),
        "note": _first(fields, "note"),
        "status": _first(fields, "pubstate"),
        "edition": _first(fields, "edition"),
    }
    return {name: value for name, value in item.items() if value is not None}
