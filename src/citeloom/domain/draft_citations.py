"""Citations in a researcher's draft, each with its line, column, pages and citing sentence.

Pandoc Markdown: ``[@key, p. 12]``, ``[see @key, pp. 3-4]``, ``[@a; @b, p. 5]`` (several keys
in one bracket), ``@key [p. 5]``, a bare ``@key`` in the text, and braced keys (``[@{key}]``,
for keys with odd characters). LaTeX (natbib, biblatex): ``\\cite[p.~12]{key}``,
``\\parencite[12]{key}``, ``\\textcite{key}``, ``\\cite[see][4]{a,b}`` and the other
``\\...cite...`` commands except ``\\nocite``. A bare number as the locator is a page, as in
pandoc and biblatex. Pages are read as a reader writes them: the printed pages (``p. 273``,
``pp. 272-73``, ``p. xii``, ``p. S3``), which ``check`` maps to the PDF's pages.

The citing sentence is the sentence the citation stands in, with every citation and the
markup taken out; a citation placed after the full stop cites the sentence before it. Markup
never joins two sentences: a full stop before ``}``, ``**`` or ``\\emph{`` still ends one.

A citation that cannot be read as written is kept, with its ``problem`` (what is wrong and
the fix), never dropped: a bracket left open (``[@key, p. 45`` or ``@key [p. 45`` with no
``]``), a ``\\cite`` without its closing ``]`` or ``}`` or without a key, a page range that
runs backwards (``pp. 119-117``; a shortened end, ``pp. 117-19``, is 117-119). ``check``
calls such a citation ``malformed``.
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
# characters of a claim: a longer run of text with no sentence end (a table, a list of
# citations) is judged, and shown, by its first ones; and each sentence is cleaned once,
# however many citations it holds, so neither time nor output grows with their product
MAX_CLAIM = 1000

_KEY = r"(?:\{[^{}\s][^{}\n]{0,300}\}|[\w][\w:.#$%&+?<>~/-]{0,300})"  # braced: @{key, odd}
_CITES = re.compile(r"-?@" + _KEY)  # a bracket holding this holds a citation
_NEXT_BRACKET = re.compile(r"[\[\]]")
_IN_TEXT = re.compile(
    r"(?<![\w.@\[])@(?P<key>" + _KEY + r")"
    r"(?:[ \t]{0,20}\[(?P<locator>[^\[\]@\n]{0,300})\](?!\())?"
)
_PART = re.compile(r"^(?P<prefix>.*?)(?<![\w.])-?@(?P<key>" + _KEY + r")(?P<locator>.*)$", re.S)
# a key list may run over lines, never past the next brace: an unclosed \cite{ swallows no
# citation that follows (its keys are checked too: a key holds no space)
_LATEX = re.compile(
    r"\\(?P<command>[a-zA-Z]{0,30}cite[a-zA-Z]{0,30})\*?\s{0,20}(?:\[(?P<first>[^\]\n]{0,300})\])?"
    r"\s{0,20}(?:\[(?P<second>[^\]\n]{0,300})\])?\s{0,20}\{(?P<keys>[^{}]{0,2000})\}"
)
# a cite command followed by "[" or "{": meant as a citation, read loosely when _LATEX cannot
# read it (each part may lack its closer) to say what is missing
_LATEX_TRY = re.compile(
    r"\\(?P<command>[a-zA-Z]{0,30}cite[a-zA-Z]{0,30})\*?[ \t]{0,20}(?=[\[{])"
    r"(?:\[(?P<first>[^\[\]{}\n]{0,300})(?:(?P<first_end>\])[ \t]{0,20}"
    r"(?:\[(?P<second>[^\[\]{}\n]{0,300})(?P<second_end>\])?)?)?)?[ \t]{0,20}"
    r"(?:\{[ \t]{0,20}(?P<key>[^{}\s,\[\]]{1,300})?)?"
)
_LATEX_COMMENT = re.compile(r"(?<!\\)%.*")
_PAGE_MARKER = re.compile(r"^\s*(?:pp?|pages?|S)\.?\s*~?\s*", re.I)
# what follows a key in a bracket left open, up to its locator: "[@key, p. 45"; "; @next"
_LOCATOR_LEAD = re.compile(r"[ \t]{0,20},?[ \t]{0,20}")
_NEXT_PART = re.compile(r"[ \t]{0,20};")
# a citation a bracket left open starts with: "[see @key", "[@{odd key}"
_OPEN_PART = re.compile(r"(?P<prefix>[^@;\[\]\n]{0,300}?)(?<![\w.])-?@(?P<key>" + _KEY + r")")
# a locator bracket after an in-text key, left open: "@key [p. 45" and the line ends
_OPEN_LOCATOR = re.compile(r"[ \t]{0,20}\[(?P<locator>[^\[\]\n]{0,300})(?![^\[\]\n])(?!\])")
# markup that stands between a full stop and the next sentence ("carbon.} Next", "**Bold.**
# Next", "\\emph{Next}"): blanked where sentences are cut, its length kept
_MARKUP = re.compile(r"\\[a-zA-Z]{1,50}\*?|[{}*_`]")
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
    # why the citation cannot be read as written, and the fix; empty when it is well formed
    problem: str = ""


def parse_pages(locator: str) -> tuple[str, ...]:
    """The printed pages a locator names: ``p. 12`` -> ("12",); ``pp. 272-73, 7`` -> ("272",
    "273", "7"); ``p. xii-xiv``; ``p. S3``; ``chap. 2`` -> (): no page."""
    pages: list[str] = []
    for part in _spec_parts(locator):
        for page in _expand(part):
            if page not in pages:
                pages.append(page)
    return tuple(pages)


def backwards(locator: str) -> str:
    """What is wrong with a locator whose page range runs backwards, with the fix; empty when
    none does. ``pp. 119-117`` (and ``pp. 119-17``) is a typo whose meaning nobody can know:
    named, not guessed. A shortened end runs forwards: ``pp. 117-19`` is 117-119."""
    for part in _spec_parts(locator):
        ends = _ends(part)
        if ends is not None and ends[1].number < ends[0].number:
            first, last = ends
            forwards = f"{render_label(last.prefix, last.style, last.number)}-" + render_label(
                first.prefix, first.style, first.number
            )
            return f"the page range {part} runs backwards: write {forwards}, or the pages meant"
    return ""


def _spec_parts(locator: str) -> list[str]:
    """The pages and ranges a locator names, as written: ``pp. 3-4, 7`` -> ["3-4", "7"];
    none for ``chap. 2``."""
    found = _page_spec(locator.lstrip(" ,"))
    return re.split(r"\s*,\s*", found[1]["spec"]) if found else []


def _page_spec(text: str) -> tuple[int, re.Match[str]] | None:
    """Where the pages of a locator at the start of ``text`` begin (after ``p. ``), and their
    match; None when it names no page."""
    marked = _PAGE_MARKER.match(text)
    at = marked.end() if marked else 0
    if not marked and re.match(r"[A-Za-z]{3,}", text):  # "chap. 2", "sec. 4", "fig. 3"
        return None
    match = _LOCATOR.match(text[at:])
    return (at, match) if match else None


def _ends(part: str) -> tuple[LabelParts, LabelParts] | None:
    """A range's first and last page, an abbreviated end written out (``272-73``: 272 and
    273; ``1081-6``; ``S3-5``); None for one page or ends of two kinds (``xii-3``)."""
    ends = [e for e in _RANGE.split(part) if e]
    if len(ends) != 2:
        return None
    first, last = split_label(ends[0]), split_label(ends[1])
    if first.style == "D" and last.style == "D" and not last.prefix and first.prefix:
        last = LabelParts(first.prefix, "D", last.number)  # S3-5
    if (first.style, first.prefix) != (last.style, last.prefix) or not first.style:
        return None
    if first.style == "D" and last.number < first.number:  # 272-73, 1081-6
        digits = str(last.number)
        if len(digits) < len(str(first.number)):
            last = LabelParts(last.prefix, "D", int(str(first.number)[: -len(digits)] + digits))
    return first, last


def _expand(part: str) -> list[str]:
    """``272-73`` -> 272, 273 (an abbreviated end); ``xii-xiv``; ``S3-S5``. A range that runs
    backwards (named by ``backwards``) or past ``MAX_RANGE`` pages is a typo: its first page
    stands."""
    written = [e for e in _RANGE.split(part) if e][:1]
    ends = _ends(part)
    if ends is None:
        return written
    first, last = ends
    if last.number < first.number or last.number - first.number > MAX_RANGE:
        return written
    return [
        render_label(first.prefix, first.style, n) for n in range(first.number, last.number + 1)
    ]


def is_latex(text: str) -> bool:
    """Whether a draft's text is LaTeX: it holds \\documentclass, \\begin{document} or a \\cite
    command. What a draft's file name says first is the check use case's to weigh
    (``services.usecases.check.CheckRequest.latex``)."""
    return bool(
        re.search(
            r"\\(?:documentclass|begin\{document\}|[a-zA-Z]{0,30}cite[a-zA-Z]{0,30}\s{0,20}[\[{])",
            text,
        )
    )


_Found = tuple[int, int, str, str, str]  # start, end, key, locator, problem


def find_citations(text: str, latex: bool | None = None) -> list[DraftCitation]:
    """Every (citekey, pages) the draft cites, in reading order, each with its sentence, and
    every citation that cannot be read as written, with its problem. Both syntaxes are read
    in any draft; ``latex`` (else guessed) makes ``%`` a comment."""
    latex = is_latex(text) if latex is None else latex
    # LaTeX comments out, their length kept so that offsets still point into the draft
    text_for_search = _LATEX_COMMENT.sub(lambda m: " " * len(m[0]), text) if latex else text
    found: list[_Found] = []
    spans: list[tuple[int, int]] = []
    _latex_citations(text_for_search, found, spans)  # a Markdown draft may hold \\cite too
    closed, left_open = _brackets(text_for_search)
    for start, end, body in closed:
        for part in body.split(";"):
            if p := _PART.match(part):
                found.append((start, end, _key(p["key"]), p["locator"].strip(" ,"), ""))
        spans.append((start, end))
    for start, stop in left_open:
        _open_bracket(text_for_search, start, stop, found, spans)
    masked_so_far = _mask(text_for_search, spans)
    for m in _IN_TEXT.finditer(masked_so_far):
        end, locator, problem = m.end(), (m["locator"] or "").strip(), ""
        if m["locator"] is None:  # a full stop after the key still ends its sentence
            end = _key_end(m)
            left = _OPEN_LOCATOR.match(masked_so_far, end)
            run = left["locator"] if left else ""
            if left and (spec := _page_spec(run.lstrip())):  # "@key [p. 45", line ends
                end = left.start("locator") + len(run) - len(run.lstrip()) + spec[0] + spec[1].end()
                locator = text[left.start("locator") : end].strip()
                problem = _unclosed(text[m.start() : end], "]")
        found.append((m.start(), end, _key(m["key"]), locator, problem))
        spans.append((m.start(), end))
    masked = _mask(text_for_search, spans)
    sentences = _sentences(_mask(text_for_search, spans, "X"))
    claims: dict[int, str] = {}  # each sentence cleaned once, however many cite it
    newlines = [m.start() for m in re.finditer("\n", text)]
    out = []
    for start, end, key, locator, problem in sorted(found, key=lambda f: (f[0], f[2])):
        before = bisect.bisect_left(newlines, start)  # newlines before the citation
        line = before + 1
        column = start - (newlines[before - 1] + 1 if before else 0) + 1
        out.append(
            DraftCitation(
                citekey=key,
                pages=parse_pages(locator),
                line=line,
                column=column,
                sentence=_claim(masked, sentences, start, claims),
                raw=text[start:end],
                locator=locator,
                problem=problem or backwards(locator),
            )
        )
    return out


def _latex_citations(text: str, found: list[_Found], spans: list[tuple[int, int]]) -> None:
    """``\\cite`` and its kin, each key with its locator; one that cannot be read (an option
    or the key list left open, no key) with its problem."""
    read: set[int] = set()
    for m in _LATEX.finditer(text):
        keys = [k.strip() for k in m["keys"].split(",")]
        # "{key\nbury carbon ...}": left open, and a key list ends within its paragraph
        if any(re.search(r"\s", k) for k in keys) or _PARAGRAPH_BREAK.search(m["keys"]):
            continue
        read.add(m.start())
        if m["command"].lower() == "nocite":
            continue
        post = m["second"] if m["second"] is not None else (m["first"] or "")
        for key in filter(None, keys):
            found.append((m.start(), m.end(), key, post.replace("~", " ").strip(), ""))
        spans.append(m.span())
    for m in _LATEX_TRY.finditer(text):
        if m.start() in read or m["command"].lower() == "nocite":
            continue
        first, second, key = m["first"], m["second"], m["key"]
        fixed = f"\\{m['command']}" + "".join(f"[{o}]" for o in (first, second) if o is not None)
        fixed += "{" + (_key(key) if key else "KEY") + "}"
        if (first is not None and not m["first_end"]) or (
            second is not None and not m["second_end"]
        ):
            problem = _unclosed(m[0], "]", fixed)
        elif key is None:
            problem = f"{m[0].strip()} names no key: write {fixed}"
        else:
            problem = _unclosed(text[m.start() : _key_end(m)], "}", fixed)
        post = second if second is not None else (first or "")
        end = _key_end(m) if key else m.start() + len(m[0].rstrip())
        found.append((m.start(), end, _key(key or ""), post.replace("~", " ").strip(), problem))
        spans.append((m.start(), end))


def _open_bracket(
    text: str, start: int, stop: int, found: list[_Found], spans: list[tuple[int, int]]
) -> None:
    """The citations a "[" left open holds (``[@key, p. 45`` and the line, or the paragraph,
    ends), read as far as they go on its line: each key with its locator and the problem."""
    stop = min(stop, start + 1 + MAX_BRACKET)
    newline = text.find("\n", start, stop)
    stop = newline if newline >= 0 else stop
    parts: list[tuple[str, str]] = []
    end, cursor = start, start + 1
    while m := _OPEN_PART.match(text, cursor, stop):
        lead = _LOCATOR_LEAD.match(text, _key_end(m), stop)
        after = lead.end() if lead else _key_end(m)
        spec = _page_spec(text[after : min(stop, after + MAX_ARGUMENT)])
        end = after + spec[0] + spec[1].end() if spec else _key_end(m)
        parts.append((_key(m["key"]), text[after:end] if spec else ""))
        more = _NEXT_PART.match(text, end, stop)
        if more is None:
            break
        cursor = more.end()
    if not parts:
        return
    problem = _unclosed(text[start:end], "]")
    found += [(start, end, key, locator, problem) for key, locator in parts]
    spans.append((start, end))


def _key_end(m: re.Match[str]) -> int:
    """Where the key of ``m`` ends in the draft: a full stop or a colon after an unbraced key
    ends the sentence, it is not part of the key (as ``_key`` reads it)."""
    written = m["key"]
    if written.startswith("{"):
        return m.end("key")
    return m.end("key") - len(written) + len(written.rstrip(".:"))


def _unclosed(raw: str, closer: str, fixed: str | None = None) -> str:
    """The problem of a citation left open: what it lacks, and the citation closed."""
    written = raw.strip()
    return f"{written} has no closing '{closer}': write {fixed or written + closer}"


def _blank(match: re.Match[str]) -> str:
    return " " * len(match[0])


def _brackets(text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """(start, end, body) of every [...] holding a citation, paired in one pass: a "[" is
    closed by the next "]" unless another "[", a blank line (pandoc's paragraph end) or the
    draft's end comes first. A Markdown link ([text](url)) and a bracket longer than
    ``MAX_BRACKET`` are not citations. Also (start, where it stops) of each "[" left open."""
    out = []
    left_open = []
    position = 0
    while (start := text.find("[", position)) >= 0:
        following = _NEXT_BRACKET.search(text, start + 1)
        stop = following.start() if following is not None else len(text)
        if following is None or following[0] == "[":
            if text.find("@", start + 1, min(stop, start + 1 + MAX_BRACKET)) >= 0:
                left_open.append((start, stop))  # it may open a citation
            if following is None:
                break
            position = stop
            continue
        end = following.end()
        position = end
        if _PARAGRAPH_BREAK.search(text, start, stop):
            left_open.append((start, stop))
            continue
        body = text[start + 1 : following.start()]
        if len(body) <= MAX_BRACKET and not text.startswith("(", end) and _CITES.search(body):
            out.append((start, end, body))
    return out, left_open


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
    """Sentence spans of the draft: paragraphs (and headings) split at ``SENTENCE_END``, read
    with the markup blanked, so that a group or an emphasis never joins two sentences."""
    cuts = {0, len(masked)}
    for pattern in (_PARAGRAPH_BREAK, _OWN_LINE):
        cuts |= {m.start() for m in pattern.finditer(masked)}
        cuts |= {m.end() for m in pattern.finditer(masked)}
    flat = _MARKUP.sub(_blank, masked).replace("\n", " ")
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


def _claim(
    masked: str, sentences: list[tuple[int, int]], offset: int, claims: dict[int, str]
) -> str:
    number = bisect.bisect_right(sentences, (offset, len(masked) + 1)) - 1
    if number < 0 or not sentences[number][0] <= offset < sentences[number][1]:
        return ""
    if number not in claims:
        start, end = sentences[number]
        own = _clean(masked[start:end])
        if len(re.findall(r"\w+", own)) < 3 and number > 0:
            # a citation after the full stop: the sentence before it is the claim
            own = _clean(masked[sentences[number - 1][0] : end])
        claims[number] = _bounded(own)
    return claims[number]


def _bounded(claim: str) -> str:
    """A claim of at most ``MAX_CLAIM`` characters, cut at a word."""
    if len(claim) <= MAX_CLAIM:
        return claim
    cut = claim[:MAX_CLAIM].rsplit(" ", 1)[0]
    return cut + " ..."
