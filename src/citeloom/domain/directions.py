"""Which way a claim goes: "higher" against "reduced", "quicker" against "takes longer".

A restatement that gets a direction wrong keeps every term of its sentence and swaps one
word for its opposite, so it aligns perfectly. Each direction word of the claim is read with
the words it is about (the nouns beside it: "the first and second peaks ... higher") and
held to the direction the stating sentence gives those same words: "the first and second
peaks are reduced, albeit the third peak is increased" reduces the claim's peaks, whatever
it does to the third. Where the sentence does not name the claim's words beside a direction,
the counts decide, as before: the claim says "more" more often than the sentence, which says
"less" more often than the claim.

A comparison is also an order: "more patients during the day than at night" against "higher
patient volumes at night than in the day" goes the same way with its two sides swapped. A
sequence in time is no direction: "kept cold for six weeks before planting" and "after six
weeks of cold, the seedlings were planted" say one thing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from citeloom.domain.abstention import STOPWORDS, stem
from citeloom.domain.facts import Difference
from citeloom.domain.text import comparable_text, fold_for_match

# each pair: word starts (or phrases) of one direction, and of the other; a phrase of time
# ("takes longer", "less time") is a speed
_GROUPS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("increas", "rais", "rise", "rising", "rose", "grow", "grew", "gain", "boost", "enhanc",
      "amplif", "elevat", "higher", "larger", "greater", "bigger", "exceed", "more", "augment"),
     ("decreas", "reduc", "lower", "fall", "fell", "drop", "declin", "diminish", "shrink",
      "suppress", "loss", "lose", "lost", "smaller", "fewer", "less", "damp", "cut ", "savings")),
    (("most", "highest", "largest", "greatest", "best", "maximum", "maximi", "maximal"),
     ("least", "lowest", "smallest", "fewest", "worst", "minimum", "minimi", "minimal")),
    (("above",), ("below",)),
    (("faster", "quicker", "accelerat", "less time", "shorter time", "sooner"),
     ("slower", "decelerat", "longer to", "takes longer", "take longer", "took longer",
      "more time", "longer time", "later than")),
    (("improv", "better", "outperform", "outdo", "outdid", "stronger", "superior"),
     ("worse", "worsen", "degrad", "underperform", "weaker", "inferior")),
    (("positive",), ("negative",)),
    (("strong",), ("weak",)),
    (("surviv", "persist", "retain", "preserv"), ("vanish", "disappear", "destroy", "collaps")),
    (("satisf", "attainable", "achievable", "within reach", "feasib"),
     ("out of reach", "unattainable", "unachievable", "infeasib", "impossib")),
    (("closer", "nearer"), ("further", "farther")),
)  # fmt: skip
_PATTERNS = [
    tuple(re.compile(r"\b(?:" + "|".join(re.escape(w) for w in side) + r")") for side in pair)
    for pair in _GROUPS
]
WINDOW = 4  # words beside a direction word that say what it is about
_WORD = re.compile(r"[a-z][a-z0-9]*")


@dataclass(frozen=True)
class _Said:
    group: int
    side: int
    at: int  # word position
    word: str


CLAUSE = "qqclause"  # where a clause ends, in a folded text: nothing binds across it
_CLAUSE_END = re.compile(
    r"[,;:()]|\b(?:but|while|whereas|albeit|although|though|yet|however)\b", re.I
)


def _marked(text: str) -> str:
    """A text folded with its clause ends marked."""
    return fold_for_match(_CLAUSE_END.sub(f" {CLAUSE} ", comparable_text(text)))


def _words(folded: str) -> list[tuple[str, int]]:
    return [(m[0], m.start()) for m in _WORD.finditer(folded)]


_NEGATED = re.compile(
    rf"\b(?:not|no|never|neither|nor|without|cannot|unable|fails?|failed)\b[^.]*?(?={CLAUSE}|$)"
)


@lru_cache(maxsize=16384)  # a page's sentence is read for every claim citing it
def _said(folded: str) -> tuple[_Said, ...]:
    """Every direction word of a folded text, with its word position; none in a negated
    clause ("does not require that the parameter is negative" goes no way)."""
    out = []
    starts = [s for _, s in _words(folded)]
    negated = [m.span() for m in _NEGATED.finditer(folded)]
    for group, sides in enumerate(_PATTERNS):
        for side, pattern in enumerate(sides):
            for m in pattern.finditer(folded):
                if any(a <= m.start() < b for a, b in negated):
                    continue
                at = next((i for i, s in enumerate(starts) if s >= m.start()), len(starts))
                shown = [w for w in folded[m.start() :].split() if w != CLAUSE][:3]
                out.append(_Said(group, side, at, " ".join(shown)))
    return tuple(out)


def _about(words: list[tuple[str, int]], at: int, said: Sequence[_Said]) -> set[str]:
    """The stems of the content words beside position ``at``, not direction words, nor words
    nearer to another direction word ("lowers the first peaks but raises the third": the
    peaks are what is lowered)."""
    skip = {s.at for s in said}
    first, last = max(0, at - WINDOW), min(len(words), at + WINDOW + 1)
    for i in range(at - 1, first - 1, -1):  # the clause it is in
        if words[i][0] == CLAUSE:
            first = i + 1
            break
    for i in range(at + 1, last):
        if words[i][0] == CLAUSE:
            last = i
            break
    window = range(first, last)
    return {
        stem(words[i][0])
        for i in window
        if i != at
        and i not in skip
        and len(words[i][0]) > 2
        and words[i][0] not in STOPWORDS
        and all(abs(i - at) <= abs(i - other) for other in skip)
    }


def direction_missing(claim: str, span: str) -> list[Difference]:
    """The claim's directions the span gives no word of, either way: a claim that memory use
    falls is not stated by a sentence on the savings being significant."""
    mine_text, theirs_text = _marked(claim), _marked(span)
    mine = _said(mine_text)
    groups = {(t.group, t.side) for t in _said(theirs_text)}
    return [
        Difference("direction", d.word, "")
        for d in mine
        if d.group in _COMPARATIVE
        and (d.group, d.side) not in groups
        and (d.group, 1 - d.side) not in groups
    ]


# the groups whose words only compare (faster, better, closer): a claim saying one states a
# comparison; "gained" or "positive" may be a paraphrase of a change or a category
_COMPARATIVE = frozenset({3, 4, 9})


def direction_facts(claim: str, core: str) -> list[Difference]:
    """The claim's directions that the stating sentence ``core`` reverses: for the same words
    where it names them, else by the counts of each direction."""
    mine_text, theirs_text = _marked(claim), _marked(core)
    mine_words, theirs_words = _words(mine_text), _words(theirs_text)
    mine, theirs = _said(mine_text), _said(theirs_text)
    out: list[Difference] = []
    swapped, crossed = _swapped_comparison(mine_text, theirs_text)
    if crossed:  # the sentence compares the other way round: its direction is the opposite
        return swapped
    # a figure with its direction decides its group: "3.6 times less" against "3.6 times
    # more", whatever other figures of the sentence go the other way
    out, by_value = _value_turned(mine_text, theirs_text)
    decided = set(by_value)
    for d in mine:
        if d.group in by_value:
            continue
        rivals = [t for t in theirs if t.group == d.group]
        about = _about(mine_words, d.at, mine)
        if not rivals or not about:
            continue
        places = [i for i, (w, _) in enumerate(theirs_words) if stem(w) in about]
        if not places:
            continue

        def closeness(t: _Said, places: list[int] = places) -> tuple[int, int]:
            near = [abs(t.at - p) for p in places if abs(t.at - p) <= WINDOW]
            return (-len(near), min(abs(t.at - p) for p in places))

        nearest = min(rivals, key=closeness)
        if closeness(nearest)[0] == 0:
            continue
        decided.add(d.group)
        if nearest.side != d.side:
            out.append(Difference("direction", d.word, nearest.word))
    out += _by_counts(mine, theirs, decided) + _bound_turned(mine_text, theirs_text)
    out += _reversed_flow(mine_text, theirs_text)
    return list(dict.fromkeys(out))


# a figure and the direction it gives: "3.6 times less", "22.98% lower", "12 percent more"
_VALUE_WAY = re.compile(
    r"\b(?P<value>\d+(?: \d+)?) (?:(?:times|fold|percent|per cent) )?(?P<way>[a-z]+)"
)


def _value_ways(folded: str) -> dict[tuple[str, int], tuple[int, str]]:
    """(figure, direction group) -> the side of the direction word written right after the
    figure, and that word."""
    out: dict[tuple[str, int], tuple[int, str]] = {}
    for m in _VALUE_WAY.finditer(folded):
        for group, sides in enumerate(_PATTERNS):
            for side, pattern in enumerate(sides):
                if pattern.match(m["way"]):
                    out[m["value"], group] = (side, m[0])
    return out


# a bound on a figure: below it ("under 50%", "at most 3") or above it ("exceed 50%")
_BOUND = re.compile(
    r"\b(?:(?P<upper>no more than|not more than|less than|fewer than|lower than|smaller than|"
    r"under|below|at most|up to)|(?P<lower>more than|greater than|higher than|larger than|"
    r"exceed(?:s|ed|ing)?|over|above|at least|in excess of)) (?P<value>\d+(?: \d+)?)\b"
)


def _bounds(folded: str) -> dict[str, tuple[int, str]]:
    """figure -> the side of the bound written before it (0 below, 1 above) and its words."""
    return {m["value"]: (0 if m["upper"] else 1, m[0]) for m in _BOUND.finditer(folded)}


def _bound_turned(mine: str, theirs: str) -> list[Difference]:
    """A figure the claim bounds one way and the sentence the other: "stays under 50%"
    against "rates exceed 50%"."""
    page = _bounds(theirs)
    out = []
    for value, (side, said) in _bounds(mine).items():
        # "50% [1-3]" folds to "50 1 3": a figure is also read as its whole part
        whole = value.split()[0]
        rival = page.get(value) or next(
            ((b[0], b[1].replace(v, whole)) for v, b in page.items() if v.split()[0] == whole),
            None,
        )
        if rival is not None and rival[0] != side:
            out.append(Difference("direction", said, rival[1]))
    return out


def _value_turned(mine: str, theirs: str) -> tuple[list[Difference], set[int]]:
    """A figure the claim gives one direction and the sentence the other ("3.6 times more
    important" against "3.6 times less important"), and the direction groups a figure of
    both decided."""
    page = _value_ways(theirs)
    out = []
    decided = set()
    for (value, group), (side, said) in _value_ways(mine).items():
        if (value, group) not in page:
            continue
        decided.add(group)
        if page[value, group][0] != side:
            shown = value.replace(" ", ".")  # folded "3 6" was written 3.6
            out.append(
                Difference(
                    "direction",
                    said.replace(value, shown, 1),
                    page[value, group][1].replace(value, shown, 1),
                )
            )
    return out, decided


# a movement's two ends: "from the neighboring wells to the central well"
_FLOW = re.compile(
    rf"\b(?:from|out of)\s+(?P<source>(?:(?!{CLAUSE}\b)[a-z-]+\s+){{1,5}}?)"
    rf"(?:to|into|towards?)\s+(?P<target>(?:(?!{CLAUSE}\b)[a-z-]+\s*){{1,4}})"
)


def _flows(folded: str) -> list[tuple[set[str], set[str], str]]:
    """Each movement a folded text names, as (the stems of where from, of where to, each
    without the words both ends share: "well"; the words that say it); a range of figures
    ("from 5 to 10") has no letters to move and is none."""
    out = []
    for m in _FLOW.finditer(folded):
        source = {stem(w)[:5] for w in m["source"].split() if _content(w)}
        target = {stem(w)[:5] for w in m["target"].split()[:3] if _content(w)}
        if source - target and target - source:
            out.append((source - target, target - source, m[0].strip()))
    return out


def _reversed_flow(mine: str, theirs: str) -> list[Difference]:
    """A movement the claim runs the other way: "out of the central well into the adjacent
    ones" where the sentence moves electrons "from the neighboring wells to the central
    well". The claim's origin is the sentence's destination (and none of its origins), and
    its destination none of the sentence's."""
    out = []
    page = _flows(theirs)
    for source, target, said in _flows(mine):
        for page_source, page_target, page_said in page:
            if (source & page_target) - page_source and not target & page_target:
                out.append(Difference("direction", said, page_said))
    return out


def _by_counts(
    mine: Sequence[_Said], theirs: Sequence[_Said], decided: set[int]
) -> list[Difference]:
    """The claim says one direction more often than the sentence, which says the other more
    often than the claim: for the groups no word of the claim was read against its own."""
    count_mine = Counter((d.group, d.side) for d in mine)
    count_theirs = Counter((d.group, d.side) for d in theirs)
    out = []
    for group in {d.group for d in mine} - decided:
        for side in (0, 1):
            other = 1 - side
            more_mine = count_mine[group, side] - count_theirs[group, side]
            more_theirs = count_theirs[group, other] - count_mine[group, other]
            if more_mine > 0 and more_theirs > 0:
                word = next(d.word for d in mine if (d.group, d.side) == (group, side))
                rival = next(d.word for d in theirs if (d.group, d.side) == (group, other))
                out.append(Difference("direction", word, rival))
    return out


_THAN = re.compile(r"\bthan\b")


def _sides(text: str) -> list[tuple[set[str], set[str], int | None, str]]:
    """Each comparison of a text as (the stems before "than" and of the clause's opening
    words, the stems after it, the side of the direction word before it, the words after
    "than" for the message): "more patients during the day than at night" -> ({patient,
    day}, {night}, 0, "than night"). Each side also holds the acronyms its runs of words
    spell ("warm vertical condensation": "wvc"), as a page abbreviates them."""
    out = []
    words = _words(text)
    said = _said(text)
    for m in _THAN.finditer(text):
        before = [w for w in text[: m.start()].split()[-6:] if _content(w)]
        after = [w for w in text[m.end() :].split()[:4] if _content(w)]
        at = next((i for i, (_, s) in enumerate(words) if s >= m.start()), len(words))
        leading = [d for d in said if at - 8 <= d.at < at]
        side = leading[-1].side if leading else None
        # the subject compared may open the clause: "Bismuth based triple therapy has a
        # better response in terms of ... than PPI based triple therapy"
        clause = text[: m.start()].rsplit(CLAUSE, maxsplit=1)[-1].split()
        opening = [w for w in clause if _content(w)][:4]
        subject = {stem(w) for w in opening} | _initials(opening)
        theirs = {stem(w) for w in after[:3]} | _initials(after[:3])
        mine = {stem(w) for w in before} | (subject - theirs)
        phrase = " ".join(["than", *after[:3]])
        out.append((mine, {stem(w) for w in after[:2]} | (theirs - mine), side, phrase))
    return out


def _initials(words: list[str]) -> set[str]:
    """The acronyms runs of these words spell: "warm vertical condensation" is "wvc" as the
    page abbreviates it."""
    return {
        "".join(w[0] for w in words[i : i + n])
        for n in (3, 4)  # two letters spell too many things
        for i in range(len(words) - n + 1)
    }


def _content(word: str) -> bool:
    return len(word) > 2 and word not in STOPWORDS and word != CLAUSE


def _swapped_comparison(mine: str, theirs: str) -> tuple[list[Difference], bool]:
    """A comparison whose two sides the sentence names the other way round, going the same
    way: "more ... during the day than at night" against "higher ... at night than in the
    day" (with the directions opposed, the two say one thing); and whether any comparison is
    named the other way round."""
    out = []
    any_crossed = False
    page = _sides(theirs)
    for claim_before, claim_after, claim_side, claim_said in _sides(mine):
        if any(claim_after & page_after for _, page_after, _, _ in page):
            continue  # the sentence compares the same way round somewhere
        for page_before, page_after, page_side, page_said in page:
            crossed = claim_after & page_before and claim_before & page_after
            same_way = claim_side is not None and claim_side == page_side
            any_crossed = any_crossed or bool(crossed)
            if crossed and same_way:
                out.append(Difference("direction", claim_said, page_said))
    return out, any_crossed
