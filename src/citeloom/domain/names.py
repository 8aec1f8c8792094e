"""The specific names a sentence uses: what a paraphrase keeps and a library must mention.

Acronyms (BLEU), alphanumerics (ResNet-50, H100), CamelCase (ColBERTv2, PaSa) and capitalised
words inside a sentence (Maple, Kano, Bioconductor) name a method, a model, a dataset or a
tool. A claim that names one the cited paper never mentions is about something else
(``domain.claims``); a question that names one no document of the library mentions cannot be
answered from it (``services.answer``). Ordinary words are never names: a paraphrase may use
words the library does not hold. In a German sentence capitalised words are nouns, not names.

Whether a text mentions a name is read as the PDF has it (``mentioned``): in any spelling of
its parts, glued or hyphenated, and for a run of capitalised words also each word named on
its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from citeloom.domain.languages import looks_german
from citeloom.domain.text import Folded, fold_for_match, holds_spelling, normalise_text

_NAME = re.compile(
    r"\b(?:[A-Z]{2,}[A-Za-z0-9]*s?|[A-Za-z]+[0-9][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*|"
    r"[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]?-[0-9]+[A-Za-z0-9]*|[A-Za-z]+@[0-9]+)"
    r"(?:-[A-Za-z0-9]+)*\b"
)  # a numbered position or atom, "C-29", "H-3"; a measure at a cut-off, "Recall@20"
# a unit's power after a number or another unit is no name: "12.88 g L-1", "5 K-1"
_UNIT_POWER = re.compile(r"[A-Z][a-z]?-[1-4]")
_AFTER_UNIT = re.compile(r"(?:\d|(?<![\w])(?!(?:of|in|at|to|on|by|an|as|is|or)\b)[a-zμ]{1,2})\s?$")
# a run of capitalised words inside a sentence is one name: "Expert Choice", "Hong-Ou-Mandel"
# (letters with accents included: "Räsänen", "Gödel")
UPPER, LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
_CAPITALISED = re.compile(
    rf"(?<=[\w,;:)] )[{UPPER}][{LOWER}]{{1,}}(?:(?:-| )[{UPPER}][{LOWER}]+)*\b"
)
# "et al.", "and colleagues": the words that credit a finding to the name before them
CREDIT = r"\s*(?:et al\b|and (?:colleagues|co-?workers|co-?authors)\b|'s group\b)"
_CITED = re.compile(rf"\b([{UPPER}][{LOWER}]+(?:-[{UPPER}][{LOWER}]+)?){CREDIT}")
# a structured abstract's heading opens the sentence: "Results: Human resource shortages ..."
# starts it again, its first word capitalised by place, not as a name
_HEADING = re.compile(r"^\s*[A-Z][a-z]+(?: [a-z]+)?:\s$")
_DOPED = re.compile(r"\b[A-Z][a-z]?:[A-Za-z]{2,}\b")  # Ti:sapphire, Nd:YAG
# capitalised words that are not names: they start clauses after a comma or name the paper's
# own parts
NOT_NAMES = frozenset(
    """The This That These Those There Then Table Figure Fig Section Chapter Equation Eq
    Appendix File Files Supplementary Box However Moreover Furthermore Although While Because
    When Where Which Who In On
    At For From With By As And Or But If
    """.split()  # noqa: SIM905
)


def names(text: str, ignore: Collection[str] = ()) -> list[str]:
    """The specific names a sentence uses: acronyms (BLEU), alphanumerics (ResNet-50, H100),
    CamelCase (ColBERTv2, PaSa) and capitalised words inside it (Maple, Kano): words a
    paraphrase keeps, never replaces. ``ignore``: names that are not the claim's content
    (the cited paper's authors)."""
    text = normalise_text(text)
    skip = {fold_for_match(n) for n in ignore}
    found = [m[0] for m in _DOPED.finditer(text)]
    found += [
        m[0]
        for m in _NAME.finditer(text)
        if not any(m[0] in f for f in found)
        and not (_UNIT_POWER.fullmatch(m[0]) and _AFTER_UNIT.search(text[: m.start()]))
    ]
    # a cited author, first in the sentence too: "Johansson et al. (2010) found", "Tully and
    # colleagues held"
    found += [m[1] for m in _CITED.finditer(text) if m[1] not in NOT_NAMES]
    # in German every noun is capitalised: a capitalised word names nothing there
    for match in () if looks_german(text) else _CAPITALISED.finditer(text):
        words = match[0].split(" ")
        if _HEADING.match(text[: match.start()]):
            words.pop(0)
        while words and words[0] in NOT_NAMES:  # "However Kano" is Kano
            words.pop(0)
        if words and (len(words) > 1 or len(words[0]) > 2):
            found.append(" ".join(words))
    # an author's name in capitals is an acronym the claim uses, not a reference to them; a
    # part of an author's name is theirs too ("Montoya" of "Rodríguez-Montoya")
    parts = {p for n in skip for p in n.split()}
    return [
        n
        for n in dict.fromkeys(found)
        if n.isupper() or (fold_for_match(n) not in skip and not set(_parts(n)) <= parts)
    ]


def _parts(name: str) -> list[str]:
    return fold_for_match(name).split() or [""]


def mentioned(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` as a reader would find it: one of its spellings
    ("Threading-BuildingBlocks" for "Threading Building Blocks", ``domain.text.spellings``),
    or, for a run of capitalised words, each word as a name of its own ("Chicago Ohio
    Illinois" on a page naming Chicago, Ohio and Illinois apart). A word inside another name
    does not count: a page on "Google Scholar" and "semantic" search does not mention
    "Semantic Scholar". A name in the plural is mentioned by its singular."""
    if holds_spelling(text, name):
        return True
    # a name in the plural is the name: "Bigtables", "CNNs" on a page writing "Bigtable"
    if re.search(r"[^\W\d_]s$", name) and holds_spelling(text, name[:-1]):
        return True
    if isinstance(text, Folded):  # its capitals are gone: no name of its own can be read
        return False
    words = name.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return False
    named = {fold_for_match(n) for n in names(text)}
    return all(fold_for_match(w) in named for w in words)
