"""A ligature the text layer lost, mended from words a reader knows.

When a PDF's font names its "fi" glyph in a way no reader resolves, the text holds U+FFFD,
the replacement character, where the page prints two or three letters: "�le", "ef�cient".
The conversion asks pdfium for the glyph's name first (``adapters.conversion.glyph_text``);
what is left is mended here, and only inside a word: the replacement character becomes the
ligature (fi, fl, ff, ffi, ffl) that makes the word one the document spells elsewhere or one
of an English word list. Where no ligature makes a known word, or two make different known
words the document does not choose between, the character stays: letters are never invented.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from itertools import product

REPLACEMENT = "\ufffd"
LIGATURES = ("fi", "fl", "ff", "ffi", "ffl")
_MAX_GAPS = 2  # replacement characters in one word tried together (5 ** 2 spellings)
_MIN_LISTED = 4  # a word only the word list knows must be this long: "fla", "ffa" are noise
# a word holding replacement characters with a letter beside at least one of them
_BROKEN = re.compile(
    f"[^\\W\\d_]*(?:{REPLACEMENT}[^\\W\\d_]*)+",
)
_WORD = re.compile(f"(?:[^\\W\\d_]|{REPLACEMENT})+")
# inflections and prefixes taken off a word before it is looked up: a word list has
# "specify", a paper "specified", "reconfiguration", "predefined"
_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("es", ""),
    ("s", ""),
    ("ed", ""),
    ("ed", "e"),
    ("ing", ""),
    ("ing", "e"),
    ("ly", ""),
    ("er", ""),
    ("ers", ""),
    ("able", ""),
    ("able", "e"),
    ("ment", ""),
    ("ments", ""),
)
_PREFIXES = ("re", "pre", "un", "in", "non", "sub")


def known_form(word: str, words: Collection[str]) -> bool:
    """Whether ``words`` holds ``word`` (lower case) as it is, or without one inflection or
    prefix: the forms a word list leaves out."""
    if word in words:
        return True
    stems = {word}
    stems.update(word[len(p) :] for p in _PREFIXES if word.startswith(p) and len(word) > len(p) + 3)
    for stem in stems:
        if stem in words:
            return True
        if any(
            stem.endswith(suffix)
            and len(stem) > len(suffix) + 2
            and stem[: -len(suffix)] + ending in words
            for suffix, ending in _SUFFIXES
        ):
            return True
    return False


def own_words(texts: Sequence[str]) -> Counter[str]:
    """How often the document spells each word (lower case) whole, with no replacement
    character in it."""
    counts: Counter[str] = Counter()
    for text in texts:
        for word in _WORD.findall(text):
            if REPLACEMENT not in word:
                counts[word.lower()] += 1
    return counts


def mend_ligatures(texts: Sequence[str], word_list: Callable[[], Collection[str]]) -> list[str]:
    """``texts`` (a document's blocks) with each replacement character inside a word read
    as the ligature that makes the word known: first a word the document itself spells
    (the most frequent if several), else the only one known in another form ("files" when
    the document has "file", "specified" when the word list has "specify"). ``word_list`` is
    called only when some text holds a replacement character."""
    if not any(REPLACEMENT in text for text in texts):
        return list(texts)
    own = own_words(texts)
    listed = word_list()

    def mend(match: re.Match[str]) -> str:
        return _mended(match[0], own, listed) or match[0]

    return [_BROKEN.sub(mend, text) if REPLACEMENT in text else text for text in texts]


def _mended(word: str, own: Counter[str], listed: Collection[str]) -> str | None:
    gaps = word.count(REPLACEMENT)
    if gaps > _MAX_GAPS or len(word) == gaps:
        return None
    letters = word.replace(REPLACEMENT, "")
    if len(letters) >= 2 and letters.isupper():
        return None  # a ligature is set in lower case: "SIGNI�CANT" lost something else
    pieces = word.split(REPLACEMENT)
    if any(piece[:1].isupper() for piece in pieces[1:]):
        return None  # nor is a capital set after one: "live �An engineering" lost a dash
    spellings = []
    for choice in product(LIGATURES, repeat=gaps):
        spelt = pieces[0] + "".join(
            lig + piece for lig, piece in zip(choice, pieces[1:], strict=True)
        )
        spellings.append(spelt)
    in_document = sorted(((own[s.lower()], s) for s in spellings if own[s.lower()]), reverse=True)
    if in_document:
        if len(in_document) == 1 or in_document[0][0] > in_document[1][0]:
            return in_document[0][1]
        return None
    known = [
        s
        for s in spellings
        if len(s) >= _MIN_LISTED and (known_form(s.lower(), own) or known_form(s.lower(), listed))
    ]
    return known[0] if len(known) == 1 else None
