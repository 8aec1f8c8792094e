"""A claim that puts a word where its sentence has the opposite: "large" for "small".

A careless restatement keeps the sentence's topic and turns one of its words into its
antonym: "Bose-Einstein statistics have a large, clearly visible effect" where the page says
"the effect ... is small albeit perceptible". Term coverage cannot see it (every other word is
there), and a hand list of directions (domain.directions) knows only comparatives. The pairs
come from WordNet's antonyms (resources/antonyms.txt, benchmarks/wordnet_antonyms.py).

An antonym counts only in the same slot: the two sentences' shared words, in order (their
longest common subsequence), cut both into stretches, and the claim's word and its opposite
must sit between the same two shared words. "the general fifth-order model" in a title does
not contradict "earlier solutions are particular cases" said elsewhere in the claim. A word
negated on one side only is no opposition ("unavailable" is "not available").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import pairwise

from citeloom.domain.abstention import STOPWORDS, stem
from citeloom.domain.facts import Difference, DifferenceKind
from citeloom.domain.names import names
from citeloom.domain.text import comparable_words, fold_for_match


class Antonyms(Mapping[str, frozenset[str]]):
    """word -> its antonyms. One table serves a process, so a sentence's words are read
    against it once (the table is hashed by identity)."""

    def __init__(self, pairs: Mapping[str, frozenset[str]], *, exact: bool = False) -> None:
        """``exact``: the words are read as written, never as a comparative's adjective; a
        claim holding none of them has no opposite here, found without reading the page."""
        self._pairs = dict(pairs)
        self.exact = exact

    def __getitem__(self, word: str) -> frozenset[str]:
        return self._pairs[word]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other


NO_ANTONYMS = Antonyms({})

# a rank is a value of its own: "the third leading cause" is not "ranks second"
_RANKS = (
    ("first", "1st"), ("second", "2nd"), ("third", "3rd"), ("fourth", "4th"), ("fifth", "5th"),
    ("sixth", "6th"), ("seventh", "7th"), ("eighth", "8th"), ("ninth", "9th"), ("tenth", "10th"),
)  # fmt: skip
ORDINALS = Antonyms(
    {word: frozenset(w for other in _RANKS if other != rank for w in other)
     for rank in _RANKS for word in rank},
    exact=True,
)  # fmt: skip

# stopwords that still carry a direction ("before" and "after" order time, which is none)
_DIRECTED = frozenset({"more", "less", "fewer", "most", "least", "above", "below"})
_NEGATORS = frozenset({"not", "no", "never", "nor", "without"})
_IRREGULAR = {"better": "good", "best": "good", "worse": "bad", "worst": "bad"}
# a comparison said with a preposition: "below the published rates" is lower than them
_COMPARING = {"below": "low", "above": "high"}


def read_antonyms(lines: Iterable[str]) -> Antonyms:
    """word -> its antonyms, from lines of two words ("#" starts a comment)."""
    found: dict[str, set[str]] = {}
    for line in lines:
        words = line.split("#", 1)[0].split()
        if len(words) == 2:
            a, b = words
            found.setdefault(a, set()).add(b)
            found.setdefault(b, set()).add(a)
    return Antonyms({word: frozenset(others) for word, others in found.items()})


def opposed(
    claim: str, passage: str, antonyms: Antonyms, kind: DifferenceKind = "direction"
) -> tuple[Difference, ...]:
    """The claim's words whose antonym ``passage`` has in the same slot, each as a
    difference ("draft: large; page: small"). Neither word may appear on the other side.
    ``kind``: what the opposites differ in (``ORDINALS`` differ in a number)."""
    if not antonyms or (antonyms.exact and not any(w in antonyms for w, _ in _words(claim))):
        return ()
    mine, theirs = _tokens(claim, antonyms), _tokens(passage, antonyms)  # read once each
    my_stems = {s for t in mine for s in t.stems}
    their_stems = {s for t in theirs for s in t.stems}
    wanted = {
        a
        for t in mine
        if not t.stems & their_stems
        for base in t.bases
        for a in antonyms.get(base, ())
    }
    if not any(t.bases & wanted and not t.stems & my_stems for t in theirs):
        return ()  # the usual case, answered without aligning the two
    anchors = _lcs(tuple(t.stem for t in mine), tuple(t.stem for t in theirs))
    bounds = [(-1, -1), *anchors, (len(mine), len(theirs))]
    out: list[Difference] = []
    for (i1, j1), (i2, j2) in pairwise(bounds):
        for i in range(i1 + 1, i2):
            word = mine[i]
            if word.stems & their_stems:
                continue
            opposite = {a for base in word.bases for a in antonyms.get(base, ())}
            for j in range(j1 + 1, j2):
                other = theirs[j]
                if (
                    other.bases & opposite
                    and not other.stems & my_stems
                    and other.negated == word.negated
                    and _beside_the_same_word(i, j, (i1, j1), (i2, j2), len(mine), len(theirs))
                ):
                    out.append(Difference(kind, word.text, other.text))
    return tuple(out)


# units of one dimension named in words: "a few megabytes" is not "a few kilobytes"
_SCALES = (
    ("bytes", "kilobytes", "megabytes", "gigabytes", "terabytes"),
    ("nanoseconds", "microseconds", "milliseconds", "seconds", "minutes", "hours", "days",
     "weeks", "months", "years"),
    ("nanometres", "micrometres", "millimetres", "centimetres", "metres", "kilometres"),
    ("nanometers", "micrometers", "millimeters", "centimeters", "meters", "kilometers"),
)  # fmt: skip
_RANK_TOO = frozenset({"second"})  # a rank as often as a unit: never read as one
UNIT_WORDS = Antonyms(
    {
        form: frozenset(
            f
            for other in scale
            if other != word
            for f in (other, other.rstrip("s"))
            if f not in _RANK_TOO
        )
        for scale in _SCALES
        for word in scale
        for form in (word, word.rstrip("s"))
        if form not in _RANK_TOO
    },
    exact=True,
)


def opposites(claim: str, passage: str, antonyms: Antonyms) -> tuple[Difference, ...]:
    """``opposed`` by the antonyms (a direction), by the ranks (a number) and by units named
    in words (a unit)."""
    found = (
        *opposed(claim, passage, antonyms),
        *opposed(claim, passage, ORDINALS, "number"),
        *opposed(claim, passage, UNIT_WORDS, "unit"),
    )
    return tuple(d for d in found if not _in_a_name(d.page, passage))


def _in_a_name(word: str, passage: str) -> bool:
    """The passage writes ``word`` only inside one of its names (``names.names``): "Joint" of
    "Joint Quantum Institute" in an affiliation is no opposite of a claim's "separate"."""
    if not word or re.search(rf"\b{re.escape(word.lower())}\b", passage):
        return False
    return any(word in fold_for_match(name).split() for name in names(passage))


NEAR = 3  # content words between a word of the slot and the shared word it qualifies


def _beside_the_same_word(
    i: int, j: int, left: tuple[int, int], right: tuple[int, int], mine: int, theirs: int
) -> bool:
    """Both words stand near one shared word, on the same side of it: "the effect of the
    statistics is small" and "the statistics have a large effect" qualify "statistics"; a
    slot bounded only by a sentence's start or end is no slot."""
    (i1, j1), (i2, j2) = left, right
    after_left = i1 >= 0 and i - i1 <= NEAR and j - j1 <= NEAR
    before_right = i2 < mine and j2 < theirs and i2 - i <= NEAR and j2 - j <= NEAR
    return after_left or before_right


class _Token:
    __slots__ = ("bases", "negated", "stem", "stems", "text")

    def __init__(self, text: str, bases: frozenset[str], negated: bool) -> None:
        self.text = text
        self.bases = bases  # the word and the adjective of a comparative: lower -> low
        self.stem = stem(text)
        self.stems = frozenset({self.stem, *(stem(b) for b in bases)})
        self.negated = negated


@lru_cache(maxsize=16384)
def _tokens(text: str, antonyms: Antonyms) -> tuple[_Token, ...]:
    return tuple(_Token(word, _bases(word, antonyms), negated) for word, negated in _words(text))


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[tuple[str, bool], ...]:
    """The text's content words, each with whether a negation stands just before it: read
    once per sentence, which every claim citing its page compares again."""
    words = comparable_words(text)
    out = []
    for i, word in enumerate(words):
        if (word in STOPWORDS and word not in _DIRECTED) or word.isdigit():
            continue  # a figure is no anchor: "3.9%" and "3.1%" are different slots' values
        out.append((word, any(w in _NEGATORS for w in words[max(0, i - 2) : i])))
    return tuple(out)


def _bases(word: str, antonyms: Antonyms) -> frozenset[str]:
    """The forms WordNet may list a word under: itself, and the adjective of a comparative
    ("higher" -> "high", "larger" -> "large", "better" -> "good", "below" -> "low"; "lower"
    is a verb too). An ``exact`` table's words are only themselves."""
    if antonyms.exact:
        return frozenset({word})
    out = {word}
    if word in _IRREGULAR:
        out.add(_IRREGULAR[word])
    if word in _COMPARING:
        out.add(_COMPARING[word])
    for suffix in ("est", "er"):
        if word.endswith(suffix):
            root = word[: -len(suffix)]
            out.update(
                guess
                for guess in (root, root[:-1], root[:-1] + "y", root + "e")
                if len(guess) > 2 and guess in antonyms
            )
    return frozenset(out)


@lru_cache(maxsize=4096)
def _lcs(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """The positions of a longest common subsequence of ``a`` and ``b``."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
            )
    i = j = 0
    out = []
    while i < n and j < m:
        if a[i] == b[j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return tuple(out)
