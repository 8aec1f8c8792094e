"""The abbreviations a paper defines, read once: "weighted mean difference (WMD)".

A claim may write out what the page abbreviates, or the reverse; both are the same name
(``domain.alignment`` counts a claim's terms in either form, ``domain.name_swaps`` never calls
one the other's rival). The long form is found as Schwartz and Hearst do.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citeloom.domain.abstention import singular
from citeloom.domain.text import comparable_words, fold_for_match


class ShortForms(dict[str, frozenset[str]]):
    """A paper's abbreviations: folded short form -> folded words of its long form. One
    paper's is read once and compared by identity, so what it adds to a span's words is
    computed once per span (``expanded_stems``)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


NO_SHORT_FORMS = ShortForms()
_SHORT = re.compile(r"\((?P<short>[A-Za-z][A-Za-z0-9\-]{0,9})\)")


def abbreviations(text: str) -> ShortForms:
    """The abbreviations a paper defines ("weighted mean difference (WMD)", "haemoglobin
    (Hb)"): folded short form -> folded words of its long form. The long form is found as
    Schwartz and Hearst do: the short form's characters, last to first, in the words before
    the parenthesis, its first character starting a word."""
    out = ShortForms()
    for match in _SHORT.finditer(text):
        short = match["short"]
        if not any(c.isupper() for c in short) or len(short) < 2:
            continue
        words = re.findall(
            r"[^\W_]+(?:-[^\W_]+)*", text[max(0, match.start() - 120) : match.start()]
        )
        words = words[-min(len(short) + 5, 2 * len(short)) :]
        long = _long_form(short, words)
        if long:
            out.setdefault(fold_for_match(short), frozenset(comparable_words(" ".join(long))))
    return out


def _long_form(short: str, words: list[str]) -> list[str] | None:
    letters = [c.lower() for c in short if c.isalnum()]
    phrase = " ".join(words).lower()
    s, p = len(letters) - 1, len(phrase) - 1
    while s >= 0:
        while p >= 0 and (
            phrase[p] != letters[s] or (s == 0 and p > 0 and phrase[p - 1].isalnum())
        ):
            p -= 1
        if p < 0:
            return None
        s, p = s - 1, p - 1
    long = phrase[phrase.rfind(" ", 0, p + 2) + 1 :].split()
    if not long or len(long) > len(letters) + 3:
        return None
    return long


def abbreviated(name: str, words: frozenset[str], short_forms: ShortForms) -> bool:
    """The span says ``name`` in the other form the paper defines for it: its long form for an
    abbreviation, or the abbreviation of the words it spells out."""
    long = short_forms.get(fold_for_match(name))
    if long and long <= words:
        return True
    spelled = set(comparable_words(name))
    return any(short in words and spelled <= long for short, long in short_forms.items())


@lru_cache(maxsize=4096)
def shortened(text: str, short_forms: ShortForms) -> str:
    """``text`` with each long form of the paper's abbreviations it spells out, in three words
    or more, written as the abbreviation: "a graph neural network built in Keras" -> "a GNN
    built in Keras", so a name the writer gives in words is read as the name the paper
    abbreviates (and held to the one the page gives in its place). A long form the claim
    abbreviates itself ("effective theory (SR)") stays: its own abbreviation is the name."""
    words = list(re.finditer(r"[^\W_]+", text))
    folded = [singular(fold_for_match(m[0])) for m in words]
    for short, long in short_forms.items():
        size = len(long)
        if size < 3 or not short.isalnum():
            continue
        forms = {singular(w) for w in long}
        for n in range(len(words) - size + 1):
            if folded[n] not in forms or set(folded[n : n + size]) != forms:
                continue
            end = words[n + size - 1].end()
            if re.match(r"\s*\(", text[end:]):  # "theory (SR)": the claim's own abbreviation
                continue
            text = f"{text[: words[n].start()]}{short.upper()}{text[end:]}"
            words = list(re.finditer(r"[^\W_]+", text))
            folded = [singular(fold_for_match(m[0])) for m in words]
            break
    return text
