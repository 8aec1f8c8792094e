"""The words that bound what a claim asserts: only, all, already, will, manually, first.

A careless restatement keeps a page's topic and changes how far its finding reaches: "only
static validation" for "static and dynamic validation", "significant for every relation" for
"all relations except one", "TIMP already offers" for "the next version of TIMP will include",
"the software requires manual interpretation" for "codeml_reader automates it", "the second
study" for "the first study". These words are stopwords to the term coverage that aligns a
claim with its sentence (they are in every sentence), so each is compared here as a slot of
its own, against the sentence that states the claim:

- the other value of the slot in that sentence is a contradiction ("draft: only; page: both");
- no value of it there leaves the claim's word unconfirmed (missing): a claim bounded by
  "only" is not stated by a sentence that does not say so;
- the sentence's own bound that the claim drops is a contradiction only where it changes what
  is asserted into what is not (yet) so: a plan, a future version, a possibility of doing; a
  hedge on a reading ("may indicate", "suggests") is not one, but the claim that drops it
  states more than the sentence does (missing: "as a finding" against "suggest that ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeloom.domain.facts import Difference
from citeloom.domain.text import comparable_text, fold_for_match


@dataclass(frozen=True)
class Slot:
    """One kind of bound: the claim's words for each value, and the values that exclude one
    another (exclusive against inclusive, manual against automatic)."""

    name: str
    values: dict[str, re.Pattern[str]]
    rivals: tuple[tuple[str, str], ...]


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")


SLOTS = (
    Slot(
        "scope",
        {
            # "only after", "only 0.05%" bound a time or a size, not what the claim is about
            "only": _words(
                r"(?<!not )only(?! (?:after|once|when|if|then|afterwards|before|until|slightly|"
                r"partly|marginally|about|around|a few|\d))",
                r"solely",
                r"exclusively",
                r"purely",
                r"restricted (?:\w+ ){0,3}to",  # "restricted their search to Medline"
                r"confined (?:\w+ ){0,3}to",
            ),
            "both": _words(
                r"both",
                r"as well as",
                r"combin\w*",
                r"mixed",
                r"together with",
                r"and also",
                r"not only",  # "not only the Medline database but also Embase"
                r"not just",
            ),
        },
        (("only", "both"),),
    ),
    Slot(
        "manner",
        {
            "manual": _words(r"manual\w*", r"by hand", r"hand-\w+"),
            "automatic": _words(r"automat\w*"),
        },
        (("manual", "automatic"),),
    ),
    Slot(
        "novelty",
        {
            "new": _words(r"new", r"novel", r"newly"),
            "known": _words(
                r"previously (?:known|published|reported|found|obtained)",
                r"already published",
                r"earlier published",
                r"published earlier",
                r"already known",
            ),
        },
        (("new", "known"),),
    ),
)
# "for every relation" where the page says "for all relations except one", "most of the
# participants" where it says "all participants": how many of the same noun
# "only one of the two companies" where it says "both companies"
_ALL = r"(?:all|every|each|both)"
_PART = r"(?:most|some|several|many|few|(?:the )?majority|(?:only )?one(?= of))"
_COUNTED = re.compile(
    rf"\b(?P<q>{_ALL}|{_PART})(?: of)?(?: (?:the|these|those|its|their))?"
    r"(?: (?:two|three|four|five|six))? (?P<noun>[a-z]{3,})"
)
_EXCEPTION = re.compile(
    r"\b(?:except(?:ion)?|all but|apart from|other than|excluding|save for|but one|but two)\b"
)
# "the second study" where the page says "the first study": an ordinal of the same noun
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|last) ([a-z]{3,})")

# A sentence putting what follows out of the present: a plan, a later version, a possibility
# of doing (not of reading: "may indicate" hedges a finding, it does not defer it).
_NOT_YET = re.compile(
    r"\b(?:future (?:work|updates?|versions?|research|studies)|in (?:the )?future|"
    r"next (?:version|release|step)|plan(?:s|ned)? to|we intend|to be (?:explored|investigated|"
    r"added|implemented|included|developed|studied|determined)|remains? to be|"
    r"in the process of|not yet|(?:could|can|might|may|would|will|shall) (?:be )?(?:added|"
    r"extended|implemented|developed|built|included|incorporated|improved|explored|adapted|"
    r"applied|released|supported|made available|available|addressed|investigated|studied)|"
    r"possible approach\w*|would (?:allow|enable|make|be))\b"
)
# the claim says it is so now (a plan of its own agrees with the page's)
_CLAIM_NOT_YET = re.compile(
    r"\b(?:will|shall|future|next|plan\w*|intend\w*|propos\w*|could|would|might|may|possible|"
    r"possibly|potential\w*|yet|later|aim\w*|envisag\w*|foresee\w*|in the process of)\b"
)
# A sentence offering what follows as a possibility, not a finding: "these results suggest that
# ... could be satisfied" does not state "the results were shown to satisfy". Not "made
# possible by" or "possible to", which say what was done or can be.
_HEDGE = re.compile(
    r"\b(?:suggest(?:s|ed|ing)?|could|may|might|possibly|perhaps|potentially|(?:un)?likely|"
    r"appears? to|seems? to|it is possible that|presumabl\w*|speculat\w*|conceivabl\w*)\b"
)
_REPORTED = re.compile(
    r"\b(?:proposal|idea|notion|suggestion|question|hypothesis|possibility|view|concern|fear|"
    r"hope|belief) (?:that|whether|of whether) (?:\S+ ){0,4}$"
)
# the claim hedges too (or reports a reading: "indicates", "points to")
_CLAIM_HEDGED = re.compile(
    r"\b(?:suggest\w*|could|may|might|possibl\w*|perhaps|potential\w*|(?:un)?likely|appears?|"
    r"seems?|presumabl\w*|speculat\w*|conceivabl\w*|hypothes\w*|propos\w*|expect\w*|"
    r"indicat\w*|can|would|argu\w*|points? to|believ\w*|think|thought|assum\w*|consistent with|"
    r"interpret\w*|as (?:evidence|a sign|an indication)|(?:read|reads|see|sees|saw) (?:\S+ )?as)\b"
)
# what a claim that drops the page's hedge says more than the page (a missing fact's draft)
AS_A_FINDING = "as a finding"
_CONTENT = re.compile(r"[a-z]{4,}")
_FILLER = frozenset(
    """that this these those with from into their there which where when what while have
    been were being also such than then them they more most other only each both very over
    about above after before between through during using used based whom whose others
    which the its our""".split()  # noqa: SIM905
)


def _folded(text: str) -> str:
    return f" {fold_for_match(comparable_text(text))} "


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _CONTENT.findall(text) if w not in _FILLER}


def qualifier_facts(claim: str, core: str) -> tuple[list[Difference], list[Difference]]:
    """Contradictions and missing facts of the claim's bounds against ``core``, the sentence
    that states it."""
    mine, theirs = _folded(claim), _folded(core)
    against: list[Difference] = _rival_bounds(mine, theirs)
    missing: list[Difference] = []
    against += (
        _ordinals(mine, theirs)
        + _periods(mine, theirs)
        + _one_or_many(mine, theirs)
        + _how_many(mine, theirs)
        + _only_one_of(mine, theirs)
    )
    deferred = deferred_in(core, claim)
    if deferred and not _CLAIM_NOT_YET.search(mine):
        against.append(Difference("negation", "does it now", deferred))
    elif (hedge := hedged_in(core, claim)) and not _CLAIM_HEDGED.search(mine):
        missing.append(Difference("term", AS_A_FINDING, hedge))
    return against, missing


def _rival_bounds(mine: str, theirs: str) -> list[Difference]:
    """The claim's bound whose rival the sentence gives for the same words ("only" against
    "both"), in folded texts."""
    out = []
    for slot in SLOTS:
        said = {v for v, p in slot.values.items() if p.search(mine)}
        held = {v for v, p in slot.values.items() if p.search(theirs)}
        for value in sorted(said - held):
            rival = next(
                (b if a == value else a for a, b in slot.rivals if value in (a, b)
                 and (b if a == value else a) in held - said),
                None,
            )  # fmt: skip
            if rival is not None and _bounds_the_same(mine, theirs, slot, value, rival):
                draft = _phrase(mine, slot.values[value])
                out.append(Difference("term", draft, _phrase(theirs, slot.values[rival])))
    return out


# the claim's content words a span's other sentence must hold to speak of the claim's own
# group ("both the companies rate it better than AHP in terms of effectiveness and
# efficiency" for "only one of the two companies rated it above AHP for effectiveness")
ELSEWHERE_SHARED = 3


def counted_elsewhere(claim: str, sentence: str) -> list[Difference]:
    """How many of a noun, held to a sentence of the span beside the one stating the claim:
    a claim of two facts finds its second in the next sentence, and "only one of the two
    companies" is denied there by "both the companies"."""
    mine, theirs = _folded(claim), _folded(sentence)
    if len(_stems(mine) & _stems(theirs)) < ELSEWHERE_SHARED:
        return []
    return _how_many(mine, theirs)


def _bounds_the_same(mine: str, theirs: str, slot: Slot, value: str, rival: str) -> bool:
    """The sentence's rival bound is about what the claim's bounds: "only static validation"
    against "static and dynamic validation ... both", not against "33RE as well as RXP407"
    when the claim's "only" bounds "micromolar". The claim's first content word after its
    bound must stand within ``NEAR`` words of the sentence's."""
    if slot.name != "scope":
        return True
    found = slot.values[value].search(mine)
    other = slot.values[rival].search(theirs)
    if found is None or other is None:
        return False
    after = [w for w in mine[found.end() :].split() if w not in _FILLER and len(w) > 2]
    if not after:
        return False
    words = theirs.split()
    at = len(theirs[: other.start()].split())
    near = words[max(0, at - NEAR) : at + NEAR + 1]
    return any(w[:5] == after[0][:5] for w in near)


NEAR = 4
_ONLY = re.compile(r"\b(?:only|solely|exclusively|purely) (?P<what>[a-z]{3,})")


def _only_one_of(mine: str, theirs: str) -> list[Difference]:
    """ "only static validation" where the sentence says "static and dynamic validation": the
    claim bounds to one what the sentence pairs with another."""
    out = []
    for m in _ONLY.finditer(mine):
        paired = None
        # "only warm vertical condensation" where the sentence says "vertical or lateral"
        bounded = mine[m.start("what") :].split()
        for what in [w for w in bounded[:3] if w not in _FILLER]:
            paired = _paired(what, theirs, f" {' '.join(bounded[:5])} ")
            if paired is not None:
                break
        if paired is not None:
            out.append(Difference("term", f"only {what}", paired))
        elif (whole := _for_all(bounded[:5], theirs, mine)) is not None:
            out.append(Difference("term", f"only {' '.join(bounded[:4])}", whole))
    return out


def _for_all(bounded: list[str], theirs: str, mine: str) -> str | None:
    """The words of ``theirs`` saying "all" of what the claim's "only" bounds ("recommended
    only for heart failure patients with mild symptoms" where the sentence says "for all
    patients with heart failure"), or None; a claim saying "all" of it too agrees."""
    for what in [w for w in bounded if w not in _FILLER and len(w) > 3]:
        found = re.search(rf"\b(?:all|every|any|both) (?:[a-z]+ ){{0,2}}?{what[:5]}\w*", theirs)
        if found is not None and not re.search(
            rf"\b(?:all|every) (?:[a-z]+ ){{0,2}}?{what[:5]}", mine
        ):
            return found[0]
    return None


def _paired(what: str, theirs: str, mine: str) -> str | None:
    """The words of ``theirs`` pairing ``what`` with another thing ("static and dynamic")
    that the claim's bounded words ``mine`` do not name too ("solely for age and gender"
    bounds both), or None."""
    paired = re.search(
        rf"\b{what[:5]}\w* (?:and|or) (?P<other>[a-z]{{3,}})|(?P<before>[a-z]{{3,}}) "
        rf"(?:and|or) {what[:5]}\w*",
        theirs,
    )
    if paired is None:
        return None
    other = paired["other"] or paired["before"]
    if other and other[:5] != what[:5] and other not in _FILLER and f" {other} " not in mine:
        return paired[0]
    return None


def _ordinals(mine: str, theirs: str) -> list[Difference]:
    """The claim's "second study" where the sentence says "first study" (the same noun)."""
    claimed = {(m[2][:5], m[1]) for m in _ORDINAL.finditer(mine)}
    stated = {(m[2][:5], m[1]) for m in _ORDINAL.finditer(theirs)}
    out = []
    for noun, ordinal in sorted(claimed - stated):
        other = next((o for n, o in sorted(stated) if n == noun and o != ordinal), None)
        if other is not None and (noun, other) not in claimed:
            out.append(Difference("term", f"{ordinal} {noun}", f"{other} {noun}"))
    return out


_PERIOD = re.compile(
    r"\b(first|second|third|last|next|same|previous|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|twelve) (second|minute|hour|day|night|week|month|year|decade)s?\b"
)


def _periods(mine: str, theirs: str) -> list[Difference]:
    """The claim's "first week" where the sentence says "first day": the same count or
    place of another span of time, a unit written as a word."""
    stated = {(m[1], m[2]) for m in _PERIOD.finditer(theirs)}
    out = []
    for m in _PERIOD.finditer(mine):
        which, unit = m[1], m[2]
        if (which, unit) in stated or any(u == unit for _, u in stated):
            continue
        other = next((u for w, u in sorted(stated) if w == which), None)
        if other is not None:
            out.append(Difference("unit", m[0], f"{which} {other}"))
    return out


# one against many of the same thing: "a single-label task" where the page says multi-label
_ONE_OR_MANY = re.compile(r"\b(single|mono|uni|multi|multiple|poly) ?([a-z]{4,})")
_MANY = frozenset({"multi", "multiple", "poly"})


def _one_or_many(mine: str, theirs: str) -> list[Difference]:
    """The claim's "single-label" where the sentence says "multi-label" (the same head)."""
    stated = {(m[1] in _MANY, m[2][:5]): m[0] for m in _ONE_OR_MANY.finditer(theirs)}
    claimed = {(m[1] in _MANY, m[2][:5]): m[0] for m in _ONE_OR_MANY.finditer(mine)}
    return [
        Difference("term", phrase, stated[not many, head])
        for (many, head), phrase in claimed.items()
        if (not many, head) in stated and (many, head) not in stated
    ]


def _how_many(mine: str, theirs: str) -> list[Difference]:
    """All of a noun against some or most of it, or against all of it but an exception."""
    claimed = {
        (m["noun"][:5], _whole(m["q"])): m[0]
        for m in _COUNTED.finditer(mine)
        if m["noun"] not in _FILLER
    }
    stated = {
        (m["noun"][:5], _whole(m["q"])): m[0]
        for m in _COUNTED.finditer(theirs)
        if m["noun"] not in _FILLER
    }
    out = []
    for (noun, whole), phrase in claimed.items():
        if (noun, whole) in stated:
            if whole and _EXCEPTION.search(theirs) and not _EXCEPTION.search(mine):
                found = _EXCEPTION.search(theirs)
                assert found is not None
                out.append(
                    Difference("term", phrase, " ".join(theirs[found.start() :].split()[:4]))
                )
            elif whole and (found := _EXCEPTION.search(mine)) and not _EXCEPTION.search(theirs):
                # "all of the baselines except PaSa-GPT-4o" where the page says all of them
                shown = " ".join(mine[found.start() :].split()[:2])
                out.append(Difference("term", f"{phrase} {shown}", stated[noun, whole]))
            continue
        other = stated.get((noun, not whole))
        if other is not None:
            out.append(Difference("term", phrase, other))
    return out


def _whole(quantifier: str) -> bool:
    return re.fullmatch(_ALL, quantifier) is not None


def deferred_in(core: str, claim: str) -> str:
    """The words of ``core`` that put the claim's content out of the present ("will be
    included", "future updates", "could be added"), or ""."""
    return _governing(_NOT_YET, core, claim, 5)


def hedged_in(core: str, claim: str) -> str:
    """The words of ``core`` that offer the claim's content as a possibility ("suggest that
    ... could be satisfied"), or "": not a reported proposal ("the proposal that GPs might
    provide ..."), which is what was proposed, not what was found."""
    return _governing(_HEDGE, core, claim, 4, unless=_REPORTED)


def _governing(
    pattern: re.Pattern[str],
    core: str,
    claim: str,
    shown: int,
    unless: re.Pattern[str] | None = None,
) -> str:
    """The first ``shown`` words of ``core`` from a match of ``pattern`` whose governed words,
    to the sentence's end, hold two of the claim's content words or more; "" if none does.
    A match is passed over where ``unless`` ends the text before it."""
    folded = _folded(core)
    wanted = _stems(_folded(claim))
    for match in pattern.finditer(folded):
        if unless is not None and unless.search(folded[: match.start()]):
            continue
        if len(_stems(folded[match.end() :]) & wanted) >= 2:
            return " ".join(folded[match.start() :].split()[:shown])
    return ""


def _phrase(folded: str, pattern: re.Pattern[str]) -> str:
    found = pattern.search(folded)
    if found is None:
        return ""
    return " ".join(folded[found.start() :].split()[:3])
