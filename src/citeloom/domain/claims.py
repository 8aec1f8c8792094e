"""Does a passage state what a claim states? Its numbers, negations, directions and names.

Topic similarity cannot tell "12 sites" from "8 sites", or "increased" from "decreased": a
false claim that changes one fact of a true sentence reads as its perfect match. So once the
passage that states the claim is found (``domain.alignment``), its facts are compared, each
with the same fact (``compare_facts``):

- numbers: each of the claim's must be stated, with a compatible unit (``domain.quantities``);
  the same quantity (its unit, or the noun beside it) with another value in the sentence that
  states the claim contradicts it;
- negation: what the claim negates must be negated there, and what that sentence negates
  the claim must not affirm;
- direction: "increases" against "decreases", "higher" against "lower";
- names: an acronym, a CamelCase or alphanumeric name, or a capitalised word of the claim must
  be in the passage (a method or a dataset it does not use is not what it states).

A contradiction says what the draft says and what the page says ("draft: 12 sites; p. 273: 8
sites"); what the passage merely leaves unstated is missing, not contradicted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from citeloom.domain.names import mentioned, names
from citeloom.domain.quantities import Quantity, find_numbers, quantities
from citeloom.domain.text import comparable_text, fold_for_match

DifferenceKind = Literal["number", "unit", "negation", "direction", "term"]

# Words that frame a claim rather than state it: never looked for on the page.
FRAMING_WORDS = frozenset(
    """reported report reports reporting colleagues coworkers co-workers authors author et al
    according claim claims claimed argue argues argued note notes noted observe observes
    observed find finds found show shows showed shown demonstrate demonstrates describe
    describes described state states stated suggest suggests suggested conclude concludes
    concluded study work paper article""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Difference:
    kind: DifferenceKind
    draft: str  # what the claim says: "12 sites"
    page: str  # what the page says: "8 sites"; "" when it says nothing of it

    def describe(self, page_label: str | None) -> str:
        where = f"p. {page_label}" if page_label else "the page"
        said = self.page or "not stated"
        return f"draft: {self.draft}; {where}: {said}"


@dataclass(frozen=True)
class Facts:
    """How a passage stands to the claim's checkable facts."""

    contradictions: tuple[Difference, ...] = ()  # the page says otherwise, of the same thing
    missing: tuple[Difference, ...] = ()  # the claim states it, the passage does not

    @property
    def agree(self) -> bool:
        return not self.contradictions and not self.missing


# ------------------------------------------------------------------ numbers
def claim_numbers(claim: str, ignore: Collection[float] = ()) -> list[Quantity]:
    """The claim's stated numbers: no figure or reference number, nor one of ``ignore`` (the
    cited paper's year: "Smith (2019) found")."""
    return [q for q in quantities(claim) if not (q.value in ignore and q.unit is None)]


def number_facts(
    numbers: list[Quantity], passage: str, core: str
) -> tuple[list[Difference], list[Difference]]:
    """Contradictions and missing numbers: a claim's number stated in ``core`` (the sentence
    that states the claim) or elsewhere in ``passage`` is there; another value of the same
    quantity in ``core`` contradicts it; anything else is missing. A number written out
    ("the two peaks") is only missing when a rival is stated."""
    against: list[Difference] = []
    missing: list[Difference] = []
    claimed = tuple(numbers)
    in_cores = find_numbers(claimed, core)
    arounds = find_numbers(claimed, passage) if passage != core else in_cores
    # the core's numbers that state another of the claim's: no rival of this one ("fifteen
    # participants (men, n = 12)" against "fifteen participants attending")
    taken = {f.stated.start for f in in_cores if f.stated is not None and f.stated is not f.claim}
    for q, in_core, around in zip(claimed, in_cores, arounds, strict=True):
        if in_core.stated is not None:
            continue
        if in_core.unit_clash is not None:
            against.append(Difference("unit", q.text, in_core.unit_clash.text))
            continue
        if in_core.rival is not None and in_core.rival.start not in taken:
            against.append(Difference("number", q.text, in_core.rival.text))
            continue
        if around.stated is not None:
            continue
        if q.spelled and q.unit is None:  # "the two peaks": no figure to state
            continue
        missing.append(Difference("number", q.text, ""))
    return against, missing


# ------------------------------------------------------------------ negation
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|lacks?|lacking|absence|absent|unable|"
    r"fails?|failed|nothing|nobody|nowhere)\b|n't\b",
    re.I,
)
_NOT_NEGATION = re.compile(
    r"\b(?:not (?:only|just)\b(?=.*\bbut\b)|no doubt|no\.|not necessarily|no more than|"
    r"no less than|no fewer than|not least)\b",
    re.I,
)
_CLAUSE_END = re.compile(r"[,;:()]|\.(?:\s|$)|\b(?:but|whereas|while|although|however|yet)\b", re.I)
_AUXILIARY = frozenset(
    """was were is are be been being do does did has have had can could will would should may
    might must shall any anything significantly significant statistically also even either
    more longer""".split()  # noqa: SIM905
)
_FILLER = frozenset(
    """a an the of and or with in on at to for from by as is are was were be its their this that
    these those than per about between which who whom whose it they there""".split()  # noqa: SIM905
)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", fold_for_match(text)) if len(w) > 2}


def _negations(text: str) -> list[re.Match[str]]:
    cleaned = _NOT_NEGATION.sub(lambda m: " " * len(m[0]), comparable_text(text))
    return list(_NEGATION.finditer(cleaned))


# an adverb is not what a negation governs: "cannot potentially be employed"
_ADVERB = re.compile(r"(?:al|iv|ent|ant|ous|ab|ib|ed|ing|ar|ct|te|ful|ic|ess)ly$")
# an aside between a negation and what it governs: "does not, of course, mean that"
_ASIDE = re.compile(r"^\s*,\s*(?:[A-Za-z]+\s*){1,3},")


def negation_scopes(text: str, span: int = 3) -> list[tuple[str, ...]]:
    """For each negation, the stems of the content words it governs, in order, up to the end
    of its clause: "no association between negative or positive life events" -> (assoc,
    negat, posit). A reporting verb is not what is negated: "did not find an association"
    governs (assoc, ...)."""
    out = []
    for words in _governed(text):
        if words and words[0] in _EVIDENTIAL:
            # "no evidence that life events were associated with dementia": what is denied
            # is the clause the evidence would show, its predicate anywhere in it
            out.append(tuple(dict.fromkeys(w[:5] for w in words[1:])))
        else:
            out.append(tuple(dict.fromkeys(w[:5] for w in words[:span])))
    return out


# nouns of evidence: a negation of one denies what it would show ("no evidence that ...")
_EVIDENTIAL = frozenset({"evidence", "indication", "indications", "sign", "signs", "proof"})


# "neither A nor B was associated with C" is one negation, of what follows B
_NOR = re.compile(r"\bnor\b", re.I)
_VERB_AFTER_NOR = re.compile(r"\b(?:was|were|is|are|has|have|had|did|does|do)\b", re.I)


def _governed(text: str) -> list[list[str]]:
    """The content words each negation of the text governs, folded, up to its clause's end.
    "Neither A nor B was associated with C" denies the association: its one negation governs
    what follows the verb after B (the "nor" is not a second one), as "A was not associated
    with C" would."""
    text = comparable_text(text)
    out = []
    paired: set[int] = set()  # where a "nor" of a "neither" starts
    for match in _negations(text):
        if match.start() in paired:
            continue
        start = match.end()
        if match[0].lower() == "neither":
            clause = _CLAUSE_END.split(text[start : start + 140], maxsplit=1)[0]
            nor = _NOR.search(clause)
            if nor is not None:
                paired.add(start + nor.start())
                verb = _VERB_AFTER_NOR.search(clause, nor.end())
                start += verb.end() if verb is not None else nor.end()
        after = _ASIDE.sub("", text[start : start + 140])
        clause = _CLAUSE_END.split(after, maxsplit=1)[0]
        words = re.findall(r"[a-z]+", fold_for_match(clause))
        out.append(
            [
                w
                for w in words
                if w not in _FILLER
                and w not in _AUXILIARY
                and w not in FRAMING_WORDS
                and len(w) > 2
                and not _ADVERB.search(w)
                and not _NEGATION.fullmatch(w)
            ]
        )
    return out


def negated_words(text: str) -> set[str]:
    """Stems of the content words any negation of the text governs."""
    return {w for scope in negation_scopes(text) for w in scope}


# negation by affix: "irrotational", "unchanged", "non-linear", "pressure-free", "motionless"
_NEGATIVE_PREFIX = re.compile(r"(?:non|un|in|im|ir|il|dis)(?P<rest>[a-z]{4,})")
_NOT_NEGATIVE_SUFFIX = frozenset({"unless", "regardless", "nevertheless", "nonetheless"})


def _affixed(word: str) -> str | None:
    """The word a negative affix negates ("irrotational" -> "rotational", "motionless" ->
    "motion"), or None."""
    if word.endswith("less") and len(word) >= 8 and word not in _NOT_NEGATIVE_SUFFIX:
        return word[:-4]
    match = _NEGATIVE_PREFIX.fullmatch(word)
    return match["rest"] if match else None


def affix_negations(text: str) -> list[tuple[str, ...]]:
    """What the text negates by affix, each as a negation's scope: "pressure free and
    irrotational" -> (press,), (rotat,). They answer a negation in words of the other text
    ("exerts no pressure and does not rotate"), never ask for one."""
    words = re.findall(r"[a-z]+", fold_for_match(comparable_text(text)))
    out = []
    plain = set()
    for n, (before, word) in enumerate(zip(["", *words], words, strict=False)):
        after = words[n + 1] if n + 1 < len(words) else ""
        if word == "free" and len(before) > 3 and before not in _FILLER:
            out.append((before[:5],))
            continue
        rest = _affixed(word)
        if rest is not None:
            out.append((rest[:5],))
        elif after != "free":
            plain.add(word[:5])
    # "unrestricted size ... do restrict the volume": the word said plainly too is affirmed
    return [scope for scope in out if scope[0] not in plain]


def _same_predicate(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two negations govern the same thing: they share the first word one of them governs
    ("no association between" and "did not find an association"); two that govern nothing
    readable ("... but B did not.") match each other."""
    if not a or not b:
        return not a and not b
    return a[0] in b or b[0] in a


def negation_facts(
    claim: str, passage: str, core: str
) -> tuple[list[Difference], list[Difference]]:
    """Each negation of the claim must be matched by one of the passage governing the same
    words (or by an affix there: "does not rotate" by "irrotational"); each negation of the
    sentence stating the claim that governs a word of the claim must be matched by one of
    the claim ("no association between ... and dementia" against "an association between
    ... and dementia"). A negation of the page governing something the claim does not speak
    of ("does not require that ...") says nothing of it."""
    against: list[Difference] = []
    missing: list[Difference] = []
    mine = negation_scopes(claim)
    in_core = negation_scopes(core)
    core_stems, claim_stems = _stems(core), _stems(claim)
    unmatched = _unmatched(mine, in_core, affix_negations(core), _doubled(claim))
    if unmatched:
        # against only where the sentence affirms what the negation governs first: "are not
        # used for primary thromboprophylaxis" is not denied by a sentence on when filters
        # "should be considered" for thromboprophylaxis
        difference = Difference("negation", _negation_phrase(claim), "affirms it")
        head = unmatched[0][0] if unmatched[0] else None
        (against if head in core_stems else missing).append(difference)
    wide = [bool(words) and words[0] in _EVIDENTIAL for words in _governed(core)]
    said = [
        s
        for s, whole in zip(in_core, wide, strict=True)
        if not s or s[0] in claim_stems or (whole and claim_stems.intersection(s))
    ]
    if _unmatched(said, mine, affix_negations(claim), _doubled(core)):
        against.append(Difference("negation", "affirms it", _negation_phrase(core)))
    return against, missing


def _doubled(text: str) -> list[bool]:
    """For each negation, whether it governs a word negated by its own affix ("not
    unchanged"): an affix elsewhere does not answer it."""
    return [any(_affixed(w) or w == "free" for w in words[:3]) for words in _governed(text)]


def _unmatched(
    scopes: list[tuple[str, ...]],
    others: list[tuple[str, ...]],
    affixes: list[tuple[str, ...]] = (),  # type: ignore[assignment]
    doubled: list[bool] = (),  # type: ignore[assignment]
) -> list[tuple[str, ...]]:
    """The negations of ``scopes`` no negation of ``others`` matches, one to one, by the
    words they govern: "none of which has not been studied" has one more than "none of
    which has been studied". ``affixes`` (negations by affix) answer those of ``scopes``
    not ``doubled``."""
    free = list(others)
    by_affix = list(affixes)
    out = []
    for n, scope in enumerate(scopes):
        match = next((o for o in free if _same_predicate(o, scope)), None)
        if match is not None:
            free.remove(match)
            continue
        double = n < len(doubled) and doubled[n]
        affix = None if double else next((a for a in by_affix if scope and a[0] == scope[0]), None)
        if affix is not None:
            by_affix.remove(affix)
            continue
        out.append(scope)
    return out


def _negation_phrase(text: str) -> str:
    """A few words from the first negation, for the message."""
    text = comparable_text(text)
    found = _negations(text)
    if not found:
        return ""
    return " ".join(text[found[0].start() :].split()[:5])


# ------------------------------------------------------------------ direction
# each pair: word starts (or phrases) of one direction, and of the other
_DIRECTIONS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("increas", "rais", "rise", "rising", "rose", "grow", "grew", "gain", "boost", "enhanc",
      "amplif", "elevat", "higher", "larger", "greater", "bigger", "exceed", "longer"),
     ("decreas", "reduc", "lower", "fall", "fell", "drop", "declin", "diminish", "shrink",
      "suppress", "loss", "lose", "lost", "smaller", "fewer", "shorter")),
    (("more",), ("less",)),
    (("most", "highest", "largest", "greatest", "best"),
     ("least", "lowest", "smallest", "fewest", "worst")),
    (("before",), ("after",)),
    (("above",), ("below",)),
    (("faster", "quicker", "accelerat"), ("slower", "decelerat")),
    (("improv", "better", "outperform"), ("worse", "worsen", "degrad", "underperform")),
    (("positive",), ("negative",)),
    (("strong",), ("weak",)),
    (("maximum", "maximi", "maximal"), ("minimum", "minimi", "minimal")),
    (("surviv", "persist", "retain", "preserv"), ("vanish", "disappear", "destroy", "collaps")),
    (("satisf", "attainable", "achievable", "within reach", "feasib"),
     ("out of reach", "unattainable", "unachievable", "infeasib", "impossib")),
)  # fmt: skip
_SIDES = [
    tuple(re.compile(r"\b(?:" + "|".join(re.escape(w) for w in side) + r")") for side in pair)
    for pair in _DIRECTIONS
]


def _directions(text: str) -> Counter[tuple[int, int]]:
    folded = fold_for_match(text)
    return Counter(
        {
            (number, side): len(pattern.findall(folded))
            for number, sides in enumerate(_SIDES)
            for side, pattern in enumerate(sides)
            if pattern.search(folded)
        }
    )


def direction_facts(claim: str, passage: str, core: str) -> list[Difference]:
    """A claim that goes one way where the sentence stating it goes the other: it says "more"
    more often than that sentence, which says "less" more often than the claim. Only the
    stating sentence counts: its neighbours may go either way about other things."""
    mine, theirs = _directions(claim), _directions(core)
    out = []
    for number in range(len(_SIDES)):
        for side in (0, 1):
            other = 1 - side
            more_mine = mine[number, side] - theirs[number, side]
            more_theirs = theirs[number, other] - mine[number, other]
            if more_mine > 0 and more_theirs > 0:
                out.append(
                    Difference(
                        "direction",
                        _word_of(claim, _SIDES[number][side]),
                        _word_of(core, _SIDES[number][other]),
                    )
                )
    return out


def _word_of(text: str, pattern: re.Pattern[str]) -> str:
    folded = fold_for_match(text)
    match = pattern.search(folded)
    if match is None:
        return ""
    return " ".join(folded[match.start() :].split()[:3])


# ------------------------------------------------------------------ names
def _contains(text: str, term: str) -> bool:
    return mentioned(text, term)


def name_facts(claim: str, passage: str, ignore: Collection[str] = ()) -> list[Difference]:
    """Names of the claim (acronyms, CamelCase, capitalised words) the passage does not
    mention: a method or a dataset it does not speak of."""
    return [
        Difference("term", name, "")
        for name in names(claim, ignore)
        if not _contains(passage, name) and fold_for_match(name) not in FRAMING_WORDS
    ]


# ------------------------------------------------------------------ all of them
def compare_facts(
    claim: str,
    passage: str,
    core: str | None = None,
    *,
    ignore_names: Collection[str] = (),
    ignore_numbers: Collection[float] = (),
    known_names: Collection[str] = (),
) -> Facts:
    """How ``passage`` (a sentence, or two or three in a row) stands to the claim's facts;
    ``core`` is the sentence of it that states the claim (the passage itself when one).
    ``ignore_names``: names that are not content (the cited paper's authors);
    ``known_names``: names the passage stands for without writing them (an abbreviation it
    defines elsewhere, in the same paper)."""
    core = passage if core is None else core
    against, missing = number_facts(claim_numbers(claim, ignore_numbers), passage, core)
    negated_against, negated_missing = negation_facts(claim, passage, core)
    against += negated_against
    missing += negated_missing
    against += direction_facts(claim, passage, core)
    known = {fold_for_match(n) for n in known_names}
    missing += [
        d for d in name_facts(claim, passage, ignore_names) if fold_for_match(d.draft) not in known
    ]
    return Facts(tuple(against), tuple(missing))
