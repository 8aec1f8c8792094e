"""Citations in a researcher's draft, each with its line, column, pages and citing sentence.

Pandoc Markdown: ``[@key, p. 12]``, ``[see @key, pp. 3-4]``, ``[@a; @b, p. 5]`` (several keys
in one bracket), ``@key [p. 5]``, a bare ``@key`` in the text, and braced keys (``[@{key}]``,
for keys with odd characters). LaTeX (natbib, biblatex): ``\\cite[p.~12]{key}``,
``\\parencite[12]{key}``, ``\\textcite{key}``, ``\\cite[see][4]{a,b}`` and the other
``\\...cite...`` commands except ``\\nocite``. A bare number as the locator is a page, as in
pandoc and biblatex. Pages are read as a reader writes them: the printed pages (``p. 273``,
``pp. 272-73``, ``p. xii``, ``p. S3``), which ``check`` maps to the PDF's pages.

The citing sentence is the sentence the citation stands in, with every citation and the
markup taken out; a citation placed after the full stop cites the sentence before it.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from citeloom.domain.page_labels import LabelParts, render_label, split_label
from citeloom.domain.sentences import SENTENCE_END

MAX_RANGE = 50  # pages a range may expand to (``pp. 3-400`` is a typo, not 398 pages)

# Every pattern here runs in time linear in the draft (a server checks drafts from anyone):
# repetitions that could scan past a missing closing bracket are bounded, and brackets are
# paired by one pass (``_brackets``), never by a pattern that backtracks over the text.
MAX_BRACKET = 2000  # characters in one [...]: a longer bracket is prose, not a citation
MAX_ARGUMENT = 300  # characters in a locator or a LaTeX option; a key list may hold 2000

_KEY = r"(?:\{[^{}\s][^{}\n]{0,300}\}|[\w][\w:.#$%&+?<>~/-]{0,300})"  # braced: @{key, odd}
_CITES = re.compile(r"-?@" + _KEY)  # a bracket holding this holds a citation
_NEXT_BRACKET = re.compile(r"[\[\]]")
_IN_TEXT = re.compile(
    r"(?<![\w.@\[])@(?P<key>" + _KEY + r")"
    r"(?:[ \t]{0,20}\[(?P<locator>[^\[\]@\n]{0,300})\](?!\())?"
)
_PART = re.compile(r"^(?P<prefix>.*?)(?<![\w.])-?@(?P<key>" + _KEY + r")(?P<locator>.*)$", re.S)
# an unclosed \cite{ ends at its line, never swallowing the citations that follow
_LATEX = re.compile(
    r"\\(?P<command>[a-zA-Z]{0,30}cite[a-zA-Z]{0,30})\*?\s{0,20}(?:\[(?P<first>[^\]\n]{0,300})\])?"
    r"\s{0,20}(?:\[(?P<second>[^\]\n]{0,300})\])?\s{0,20}\{(?P<keys>[^}\n]{0,2000})\}"
)
_LATEX_COMMENT = re.compile(r"(?<!\\)%.*")
_PAGE_MARKER = re.compile(r"^\s*(?:pp?|pages?|S)\.?\s*~?\s*", re.I)
_PAGE_LABEL = r"(?:[A-Za-z]{0,2}\d+[a-z]?|[ivxlcdm]+|[IVXLCDM]+)"
_LOCATOR = re.compile(
    rf"^(?P<spec>{_PAGE_LABEL}(?:\s*(?:,|-{{1,2}}|–|—)\s*{_PAGE_LABEL})*)(?![\w-])"
)
_RANGE = re.compile(r"\s*(?:-{1,2}|–|—)\s*")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# a heading or a structural LaTeX line is a sentence of its own
_OWN_LINE = re.compile(
    r"(?m)^[ \t]*(?:#|\\(?:part|chapter|(?:sub)*section|paragraph|begin|end|item)\b).*$"
)


@dataclass(frozen=True)
class DraftCitation:
    citekey: str
    pages: tuple[str, ...]  # the printed pages it names ("273", "xii"); () when none
    line: int  # 1-based, of the citation's first character
    column: int  # 1-based
    sentence: str  # the claim: the citing sentence without citations and markup
    raw: str  # the citation as written
    locator: str = ""  # as written (``p. 12``), empty when none


def parse_pages(locator: str) -> tuple[str, ...]:
    """The printed pages a locator names: ``p. 12`` -> ("12",); ``pp. 272-73, 7`` -> ("272",
    "273", "7"); ``p. xii-xiv``; ``p. S3``; ``chap. 2`` -> (): no page."""
    text = locator.lstrip(" ,")
    marked = _PAGE_MARKER.match(text)
    rest = text[marked.end() :] if marked else text
    if not marked and re.match(r"[A-Za-z]{3,}", rest):  # "chap. 2", "sec. 4", "fig. 3"
        return ()
    match = _LOCATOR.match(rest)
    if not match:
        return ()
    pages: list[str] = []
    for part in re.split(r"\s*,\s*", match["spec"]):
        for page in _expand(part):
            if page not in pages:
                pages.append(page)
    return tuple(pages)


def _expand(part: str) -> list[str]:
    """``272-73`` -> 272, 273 (an abbreviated end); ``xii-xiv``; ``S3-S5``. A range that runs
    backwards or past ``MAX_RANGE`` pages is a typo: its first page stands."""
    ends = [e for e in _RANGE.split(part) if e]
    if len(ends) != 2:
        return ends[:1]
    first, last = split_label(ends[0]), split_label(ends[1])
    if first.style == "D" and last.style == "D" and not last.prefix and first.prefix:
        last = LabelParts(first.prefix, "D", last.number)  # S3-5
    if (first.style, first.prefix) != (last.style, last.prefix) or not first.style:
        return [ends[0]]
    if first.style == "D" and last.number < first.number:  # 272-73, 1081-6
        digits = str(last.number)
        if len(digits) < len(str(first.number)):
            last = LabelParts(last.prefix, "D", int(str(first.number)[: -len(digits)] + digits))
    if last.number < first.number or last.number - first.number > MAX_RANGE:
        return [ends[0]]
    return [
        render_label(first.prefix, first.style, n) for n in range(first.number, last.number + 1)
    ]


def is_latex(text: str, name: str = "") -> bool:
    return name.lower().endswith((".tex", ".ltx")) or bool(
        re.search(
            r"\\(?:documentclass|begin\{document\}|[a-zA-Z]{0,30}cite[a-zA-Z]{0,30}\s{0,20}[\[{])",
            text,
        )
    )


def find_citations(text: str, latex: bool | None = None) -> list[DraftCitation]:
    """Every (citekey, pages) the draft cites, in reading order, each with its sentence.
    Both syntaxes are read in any draft; ``latex`` (else guessed) makes ``%`` a comment."""
    latex = is_latex(text) if latex is None else latex
    # LaTeX comments out, their length kept so that offsets still point into the draft
    text_for_search = _LATEX_COMMENT.sub(lambda m: " " * len(m[0]), text) if latex else text
    found: list[tuple[int, int, str, str]] = []  # start, end, key, locator
    spans: list[tuple[int, int]] = []
    for m in _LATEX.finditer(text_for_search):  # a Markdown draft may hold \\cite too
        if m["command"].lower() == "nocite":
            continue
        post = m["second"] if m["second"] is not None else (m["first"] or "")
        for key in filter(None, (k.strip() for k in m["keys"].split(","))):
            found.append((m.start(), m.end(), key, post.replace("~", " ").strip()))
        spans.append(m.span())
    for start, end, body in _brackets(text_for_search):
        for part in body.split(";"):
            if p := _PART.match(part):
                found.append((start, end, _key(p["key"]), p["locator"].strip(" ,")))
        spans.append((start, end))
    for m in _IN_TEXT.finditer(_mask(text_for_search, spans)):
        found.append((m.start(), m.end(), _key(m["key"]), (m["locator"] or "").strip()))
        spans.append(m.span())
    masked = _mask(text_for_search, spans)
    sentences = _sentences(_mask(text_for_search, spans, "X"))
    newlines = [m.start() for m in re.finditer("\n", text)]
    out = []
    for start, end, key, locator in sorted(found, key=lambda f: (f[0], f[2])):
        before = bisect.bisect_left(newlines, start)  # newlines before the citation
        line = before + 1
        column = start - (newlines[before - 1] + 1 if before else 0) + 1
        out.append(
            DraftCitation(
                citekey=key,
                pages=parse_pages(locator),
                line=line,
                column=column,
                sentence=_claim(masked, sentences, start),
                raw=text[start:end],
                locator=locator,
            )
        )
    return out


def _brackets(text: str) -> list[tuple[int, int, str]]:
    """(start, end, body) of every [...] holding a citation, paired in one pass: a "[" is
    closed by the next "]" unless another "[" comes first. A Markdown link ([text](url)) and a
    bracket longer than ``MAX_BRACKET`` are not citations."""
    out = []
    position = 0
    while (start := text.find("[", position)) >= 0:
        following = _NEXT_BRACKET.search(text, start + 1)
        if following is None:
            break
        if following[0] == "[":
            position = following.start()
            continue
        end = following.end()
        body = text[start + 1 : following.start()]
        if len(body) <= MAX_BRACKET and not text.startswith("(", end) and _CITES.search(body):
            out.append((start, end, body))
        position = end
    return out


def _key(written: str) -> str:
    """``{key}`` as written braced, else without a sentence's trailing full stop or colon."""
    if written.startswith("{") and written.endswith("}"):
        return written[1:-1].strip()
    return written.rstrip(".:")


def _mask(text: str, spans: list[tuple[int, int]], fill: str = " ") -> str:
    """Citations blanked out, offsets kept; filled with a capital letter, a citation that
    opens a sentence still lets the sentence before it end."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = fill * (end - start)
    return "".join(chars)


def _sentences(masked: str) -> list[tuple[int, int]]:
    """Sentence spans of the draft: paragraphs (and headings) split at ``SENTENCE_END``."""
    cuts = {0, len(masked)}
    for pattern in (_PARAGRAPH_BREAK, _OWN_LINE):
        cuts |= {m.start() for m in pattern.finditer(masked)}
        cuts |= {m.end() for m in pattern.finditer(masked)}
    flat = masked.replace("\n", " ")
    cuts |= {m.end() for m in SENTENCE_END.finditer(flat)}
    ordered = sorted(cuts)
    return list(itertools.pairwise(ordered))


def _clean(text: str) -> str:
    """Plain words of a sentence: markup out (LaTeX commands keep their argument)."""
    text = re.sub(r"\\[a-zA-Z]{1,50}\*?(?:\[[^\]\n]{0,300}\])?\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\[a-zA-Z]+\*?", " ", text)
    text = re.sub(r"[{}*_`]|~", " ", text.replace("~", " "))
    text = re.sub(r"^\s*#+\s*", "", text)
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s+([.,;:!?])", r"\1", text)


def _claim(masked: str, sentences: list[tuple[int, int]], offset: int) -> str:
    number = bisect.bisect_right(sentences, (offset, len(masked) + 1)) - 1
    if number < 0 or not sentences[number][0] <= offset < sentences[number][1]:
        return ""
    start, end = sentences[number]
    own = _clean(masked[start:end])
    if len(re.findall(r"\w+", own)) >= 3 or number == 0:
        return own
    # a citation after the full stop: the sentence before it is the claim
    return _clean(masked[sentences[number - 1][0] : end])
