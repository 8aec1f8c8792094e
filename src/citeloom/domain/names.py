"""The specific names a sentence uses: what a paraphrase keeps and a library must mention.

Acronyms (BLEU), alphanumerics (ResNet-50, H100), CamelCase (ColBERTv2, PaSa) and capitalised
words inside a sentence (Maple, Kano, Bioconductor) name a method, a model, a dataset or a
tool. A claim that names one the cited paper never mentions is about something else
(``domain.claims``); a question that names one no document of the library mentions cannot be
answered from it (``services.answer``). Ordinary words are never names: a paraphrase may use
words the library does not hold. In a German sentence capitalised words are nouns, not names.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from citeloom.domain.languages import looks_german
from citeloom.domain.text import fold_for_match, normalise_text

_NAME = re.compile(
    r"\b(?:[A-Z]{2,}[A-Za-z0-9]*s?|[A-Za-z]+[0-9][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*|"
    r"[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]?-[0-9]+[A-Za-z0-9]*)(?:-[A-Za-z0-9]+)*\b"
)  # the last: a numbered position or atom, "C-29", "H-3"
# a unit's power after a number or another unit is no name: "12.88 g L-1", "5 K-1"
_UNIT_POWER = re.compile(r"[A-Z][a-z]?-[1-4]")
_AFTER_UNIT = re.compile(r"(?:\d|(?<![\w])(?!(?:of|in|at|to|on|by|an|as|is|or)\b)[a-zμ]{1,2})\s?$")
# a run of capitalised words inside a sentence is one name: "Expert Choice", "Hong-Ou-Mandel"
_CAPITALISED = re.compile(r"(?<=[\w,;:)] )[A-Z][a-z]{1,}(?:(?:-| )[A-Z][a-z]+)*\b")
_DOPED = re.compile(r"\b[A-Z][a-z]?:[A-Za-z]{2,}\b")  # Ti:sapphire, Nd:YAG
# capitalised words that are not names: they start clauses after a comma or name the paper's
# own parts
_NOT_NAMES = frozenset(
    """The This That These Those There Then Table Figure Fig Section Chapter Equation Eq
    Appendix However Moreover Furthermore Although While Because When Where Which Who In On
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
    # in German every noun is capitalised: a capitalised word names nothing there
    for match in () if looks_german(text) else _CAPITALISED.finditer(text):
        words = match[0].split(" ")
        while words and words[0] in _NOT_NAMES:  # "However Kano" is Kano
            words.pop(0)
        if words and (len(words) > 1 or len(words[0]) > 2):
            found.append(" ".join(words))
    # an author's name in capitals is an acronym the claim uses, not a reference to them
    return [n for n in dict.fromkeys(found) if fold_for_match(n) not in skip or n.isupper()]
