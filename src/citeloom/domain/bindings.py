"""A number given to the wrong thing: the page's 223 is mouse-specific, its human-specific is 80.

A sentence stating several values of one kind ("223 genes showed mouse-specific ... and 80
showed human-specific selection"; "33RE (Ki = 11.21 nM) ... RXP407 (Ki = 21.03 nM)") holds
the claim's value, so the claim's number reads as stated, yet the claim attaches it to what
the page attaches to another value. Each value of the sentence is bound to the words nearest
to it; a word of the claim's near its number (or a name anywhere in the claim) that the
sentence writes once, beside another value of the same kind and far from the claim's, says
the value was moved. A word as near to the claim's value as to the other, or one the
sentence repeats, decides nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from citeloom.domain.abstention import STOPWORDS, singular, stem
from citeloom.domain.claim_numbers import same_quantity, states
from citeloom.domain.facts import Difference
from citeloom.domain.names import names
from citeloom.domain.quantities import Quantity, quantities
from citeloom.domain.respective import listed
from citeloom.domain.text import comparable_text, fold_for_match

NEAR = 5  # words between a value and the word bound to it
WINDOW = 8  # words of the claim either side of its number that may say what it counts
_WORD = re.compile(r"[^\W_]+")
_CLAUSE_MARK = re.compile(r"[,;:()]")


def _tokens(text: str) -> list[tuple[str, int]]:
    """The folded words of a comparable text with their character offsets."""
    return [(fold_for_match(m[0]), m.start()) for m in _WORD.finditer(text)]


def _index(tokens: Sequence[tuple[str, int]], offset: int) -> int:
    """The position of the word at or after a character offset."""
    for i, (_, start) in enumerate(tokens):
        if start >= offset:
            return i
    return len(tokens)


# "single", "double", "triple" before a noun name a kind ("triple therapy", "double blind"),
# not a figure the claim's words could belong to
_KINDS = frozenset({"single", "double", "triple", "quadruple"})
# an estimate's interval or test in brackets, "(95% CI 7.85 to 33.61 g/l, p=0.02)": its
# figures are the estimate's, not other values the sentence binds to words
_INTERVAL = re.compile(
    r"\((?:\s*\d+(?:\.\d+)?\s*%)?\s*"
    r"(?:CI|confidence interval|SD|SE|SEM|IQR|range|p\s*[<=>≤¼])[^()]*\)",
    re.I,
)


def _without_intervals(text: str) -> str:
    return re.sub(r"\s+", " ", _INTERVAL.sub("", comparable_text(text))).strip()


def misbound(claim: str, core: str, numbers: Sequence[Quantity]) -> list[Difference]:
    """The claim's numbers that ``core`` (the sentences stating the claim) states but binds
    to other words than the claim does: "draft: 223 (human); page: 80 (human)"."""
    claim_text, core_text = comparable_text(claim), _without_intervals(core)
    claim_tokens, core_tokens = _tokens(claim_text), _tokens(core_text)
    core_forms = Counter(_form(w) for w, _ in core_tokens)
    said = [q for q in quantities(core_text) if not (q.spread or q.pointer)]
    named = {w for n in names(claim) for w in fold_for_match(n).split()}
    # the claim's own numbers: a word of the claim counts for the one it is nearest to
    starts = [
        _index(claim_tokens, q.start)
        for q in quantities(claim_text)
        if fold_for_match(q.text) not in _KINDS
    ]
    out = []
    for q in numbers:
        stated = [p for p in said if states(q, p)]
        others = [
            p
            for p in said
            if p not in stated
            and _same_kind(q, p)
            and not any(listed(core_text, p, s) for s in stated)
        ]
        if not stated or not others:
            continue
        at = _index(claim_tokens, q.start)
        nearby = {
            w
            for w, start in claim_tokens[max(0, at - WINDOW) : at + WINDOW + 1]
            if not _across_clause(claim_text, start, q)
        }
        anchors = [
            w
            for w in dict.fromkeys([*nearby, *named])
            if len(w) > 2
            and w not in STOPWORDS
            and not w.isdigit()
            and _nearest(claim_tokens, w, starts) == at
        ]
        bound_elsewhere: tuple[str, Quantity] | None = None
        bound_here = False
        for word in anchors:
            places = [i for i, (w, _) in enumerate(core_tokens) if w == word]
            # a word the sentence repeats, in any form, decides nothing: "a bed capacity of
            # 117 ... 1000 beds"
            if len(places) != 1 or core_forms[_form(word)] > 1:
                continue
            place = places[0]
            here = min(_gap(core_tokens, place, p) for p in stated)
            there, other = min(
                ((_gap(core_tokens, place, p), p) for p in others), key=lambda x: x[0]
            )
            if here <= there:
                bound_here = True
            elif (
                there <= NEAR
                and bound_elsewhere is None
                and (
                    here >= 2 * there + 2
                    or (
                        word in named
                        and _own_clause(core_text, core_tokens[place][1], other, stated)
                    )
                )
            ):
                bound_elsewhere = (word, other)
        if bound_elsewhere is not None and not bound_here:
            word, other = bound_elsewhere
            out.append(Difference("number", f"{q.text} ({word})", f"{other.text} ({word})"))
    return out


# a value tied to a name by a preposition: "a decrease of 22.98% on AutoScholarQuery", "a
# 34.05% improvement in Recall@20"
_TIED = re.compile(
    r"\s*(?:(?:improvement|increase|decrease|drop|gain|loss|reduction|rise)\s+)?"
    r"(?:on|in|for|at|among|across|under|with)\s+(?:the\s+)?(?P<name>[\w@-]+)"
)


def _tied(text: str, said: Sequence[Quantity]) -> list[tuple[Quantity, str, str]]:
    """The values of ``text`` a preposition ties to one of its names, with that name folded
    and as written."""
    known = {fold_for_match(n) for n in names(text) if " " not in n}
    out = []
    for q in said:
        m = _TIED.match(text, q.end)
        if m and fold_for_match(m["name"]) in known:
            out.append((q, fold_for_match(m["name"]), m["name"]))
    return out


def retied(claim: str, core: str, numbers: Sequence[Quantity]) -> list[Difference]:
    """The claim's value the page ties to one name ("22.98% on AutoScholarQuery") given with
    the name the page ties to another value of its kind ("32.21% on RealScholarQuery"): the
    claim names the second and not the first, and does not give the second value itself.
    A preposition binds more tightly than nearness: the dataset's name after a list's
    second value is that value's, though the measure named before the list is nearer the
    first."""
    claim_text, core_text = comparable_text(claim), comparable_text(core)
    said = [q for q in quantities(core_text) if not (q.spread or q.pointer)]
    tied = _tied(core_text, said)
    if len(tied) < 2:
        return []
    words = f" {' '.join(w for w, _ in _tokens(claim_text))} "

    def in_claim(name: str) -> bool:  # "recall 20": a name folds to words
        return f" {name} " in words

    for q in numbers:
        for mine, name, _ in tied:
            if not states(q, mine) or in_claim(name):
                continue
            for other, rival, written in tied:
                if (
                    rival != name
                    and in_claim(rival)
                    and not states(q, other)
                    and _same_kind(q, other)
                    and not any(states(c, other) for c in numbers)
                ):
                    page = f"{other.text} ({written})"
                    return [Difference("number", f"{q.text} ({written})", page)]
    return []


# a value and the name it is given for, the name after it ("20% better than Qwen-2.5-7b", "a
# 34.05% improvement in Recall@20") or before it ("outperforming Qwen-2.5-7b by 30%", "GPT-4o
# (81%)")
_NAME_AFTER = re.compile(
    r"\s*(?:(?:points?|better|worse|higher|lower|improvement|increase|decrease|"
    r"drop|gain|loss|reduction|rise)\s+)?"
    r"(?:than|over|above|below|on|in|for|at|with|against|versus|vs\.?)\s+(?:the\s+)?"
    r"(?P<name>[\w@.-]*\w)"
)
_NAME_BEFORE = re.compile(r"(?P<name>[\w@.-]*\w)\s*(?:\s(?:by|at|with|of)|\(|:|=)\s*$")


def _given_for(text: str, said: Sequence[Quantity]) -> list[tuple[Quantity, str, str]]:
    """The values of ``text`` written beside one of its names as the value for it, with the
    name folded and as written."""
    known = sorted({fold_for_match(n) for n in names(text) if " " not in n}, key=len, reverse=True)

    def name_in(written: str) -> str | None:  # "Qwen-2.5-7b" is the name "Qwen" read on
        folded = fold_for_match(written)
        return next((k for k in known if folded == k or folded.startswith(f"{k} ")), None)

    out = []
    for q in said:
        after = _NAME_AFTER.match(text, q.end)
        before = _NAME_BEFORE.search(text, max(0, q.start - 40), q.start)
        for m in (after, before):
            name = None if m is None else name_in(m["name"])
            if m is not None and name is not None:
                out.append((q, name, m["name"]))
                break
    return out


def renamed(claim: str, core: str, numbers: Sequence[Quantity]) -> list[Difference]:
    """The claim's value for a name ("20% better than Qwen-2.5-7b") where the page gives that
    name another value of its kind ("outperforming ... Qwen-2.5-7b by 30%") and states the
    claim's value nowhere: the figure was miscopied, and the name says which figure it is.
    A name the page gives two values for decides nothing."""
    claim_text, core_text = comparable_text(claim), comparable_text(core)
    said = [q for q in quantities(core_text) if not (q.spread or q.pointer)]
    page = _given_for(core_text, said)
    mine = [
        (q, name) for q, name, _ in _given_for(claim_text, list(numbers))
        if not any(states(q, p) for p in said)
    ]  # fmt: skip
    for q, name in mine:
        theirs = [(p, written) for p, rival, written in page if rival == name]
        if len(theirs) != 1:
            continue
        other, written = theirs[0]
        if _same_kind(q, other) and not any(states(c, other) for c in numbers):
            return [Difference("number", f"{q.text} ({written})", f"{other.text} ({written})")]
    return []


def _across_clause(text: str, start: int, q: Quantity) -> bool:
    """Whether a comma, colon or bracket stands between the word at ``start`` and the value:
    the word is another clause's ("From 2,589 participants first enrolled, exclusions for
    missing data ..." does not bind "missing" to the 2,589)."""
    low, high = (start, q.start) if start < q.start else (q.end, start)
    return _CLAUSE_MARK.search(text, low, high) is not None


def _own_clause(text: str, start: int, other: Quantity, stated: Sequence[Quantity]) -> bool:
    """Whether the name at ``start`` shares its clause with the other value and with none of
    the claim's: "Sarker et al selected 90 days ..., and Vijayan et al selected 30 days" binds
    Vijayan to the 30 days, though the 90 are not twice as far (an ordinary word may speak
    of both clauses: "423 participants developed dementia, of whom 240 ...")."""
    return not _across_clause(text, start, other) and all(
        _across_clause(text, start, q) for q in stated
    )


def _form(word: str) -> str:
    """A word without its plural or other inflection: "beds" and "bed" are one word."""
    return stem(singular(word))


def _gap(tokens: Sequence[tuple[str, int]], place: int, q: Quantity) -> int:
    """Words between the word at ``place`` and a value, counted from the value's near end:
    "10.42 g/l in the PPI group" puts PPI three words after the value, not six."""
    first = _index(tokens, q.start)
    if place < first:
        return first - place
    return max(0, place - (_index(tokens, q.end) - 1))


def _nearest(tokens: Sequence[tuple[str, int]], word: str, numbers: Sequence[int]) -> int | None:
    """Where the claim's number nearest to ``word`` is (its first place), or None; None too
    where two numbers are as near ("heights of 1 and 2 and FWHMs of 5000": FWHMs is the
    5000's as much as the 2's, so it says nothing of either)."""
    places = [i for i, (w, _) in enumerate(tokens) if w == word]
    if not places or not numbers:
        return None
    gaps = sorted((min(abs(n - p) for p in places), n) for n in set(numbers))
    if len(gaps) > 1 and gaps[0][0] == gaps[1][0]:
        return None
    return gaps[0][1]


def _same_kind(claim: Quantity, page: Quantity) -> bool:
    """A value the page gives for another thing of the claim's kind: the same unit, or both
    bare counts of like things."""
    if claim.unit is not None or page.unit is not None:
        return (
            claim.unit is not None
            and page.unit is not None
            and claim.unit.numerator == page.unit.numerator
        )
    if same_quantity(claim, page) or (claim.noun is not None and claim.noun == page.noun):
        return True
    # counts in a list: "223 genes showed ..., and finally 80 showed ..."
    whole = not (claim.decimals or page.decimals or claim.spelled or page.spelled)
    return whole and bool(claim.context & page.context)
