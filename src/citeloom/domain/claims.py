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
from collections.abc import Collection, Sequence

from citeloom.domain.bindings import misbound, renamed, retied
from citeloom.domain.claim_numbers import find_numbers
from citeloom.domain.directions import direction_facts, direction_missing
from citeloom.domain.facts import FRAMING_WORDS, Difference, Facts
from citeloom.domain.name_ties import crossed_pairs
from citeloom.domain.names import mentioned, names
from citeloom.domain.qualifiers import counted_elsewhere, qualifier_facts
from citeloom.domain.quantities import Quantity, quantities
from citeloom.domain.respective import misassigned
from citeloom.domain.sentences import split_sentences
from citeloom.domain.text import comparable_text, fold_for_match


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
        if q.spelled and q.unit is None and around.rival is None:
            continue  # "the two peaks", "three in five": no figure to state
        missing.append(Difference("number", q.text, ""))
    return against, missing


def _beside(passage: str, core: str) -> list[str]:
    """The passage's sentences other than the one stating the claim."""
    if passage == core:
        return []
    return [s.text for s in split_sentences(passage) if s.text not in core and core not in s.text]


def _stating_too(numbers: Sequence[Quantity], beside: Sequence[str], core: str) -> list[str]:
    """The sentences ``beside`` the core that state a figure of the claim the core does not:
    they state the claim too ("1.44 for the Hb trials" in one sentence, "1.32 ..., which
    showed a lack of publication bias" in the next), so what they deny, the page denies."""
    if not beside or not numbers:
        return []
    claimed = tuple(numbers)
    in_core = [f.stated is not None for f in find_numbers(claimed, core)]
    out = []
    for text in beside:
        found = find_numbers(claimed, text)
        if any(f.stated is not None and not c for f, c in zip(found, in_core, strict=True)):
            out.append(text)
    return out


# ------------------------------------------------------------------ negation
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|lacks?|lacking|absence|absent|unable|"
    r"fails?|failed|nothing|nobody|nowhere|rather than|instead of)\b|n't\b",
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


def negation_scopes(text: str, span: int = 6) -> list[tuple[str, ...]]:
    """For each negation, the stems of the content words it governs, in order, up to the end
    of its clause: "no association between negative or positive life events" -> (assoc,
    negat, posit). A reporting verb is not what is negated: "did not find an association"
    governs (assoc, ...)."""
    return [_scope(words, span) for words in _governed(text)]


def _scope(words: list[str], span: int = 6) -> tuple[str, ...]:
    """``negation_scopes`` of one negation, from the words it governs."""
    if words and words[0] in _EVIDENTIAL:
        # "no evidence that life events were associated with dementia": what is denied is
        # the clause the evidence would show, its predicate anywhere in it
        return tuple(dict.fromkeys(w[:5] for w in words[1:]))
    return tuple(dict.fromkeys(w[:5] for w in words[:span]))


# nouns of evidence: a negation of one denies what it would show ("no evidence that ...")
_EVIDENTIAL = frozenset({"evidence", "indication", "indications", "sign", "signs", "proof"})


# "neither A nor B was associated with C" is one negation, of what follows B
_NOR = re.compile(r"\bnor\b", re.I)
_VERB_AFTER_NOR = re.compile(r"\b(?:was|were|is|are|has|have|had|did|does|do)\b", re.I)


# "is not necessary and a hamiltonian ... can be constructed": a new subject, its own clause
_NEW_SUBJECT = re.compile(r"\band an?\b", re.I)


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
        clause = _NEW_SUBJECT.split(_CLAUSE_END.split(after, maxsplit=1)[0], maxsplit=1)[0]
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
_ADJECTIVE_ENDINGS = (
    "able", "ible", "al", "ant", "ent", "ive", "ous", "ate", "ete", "ect", "ite", "ure", "ar",
    "ic",
)  # fmt: skip
_NOT_NEGATED = (
    "indicat", "immediat", "intermed", "integrat", "investigat", "intimat", "internal",
    "individual", "intens", "interact", "important", "incident", "inherent", "instant",
    "distant", "interest", "invent", "intellect", "initial", "interven", "incorporat",
    "insert", "inspect", "instruct", "infect", "inject", "imperial", "influent",
)  # fmt: skip


def _affixed(word: str) -> str | None:
    """The word a negative affix negates ("irrotational" -> "rotational", "motionless" ->
    "motion"), or None."""
    if word.endswith("less") and len(word) >= 8 and word not in _NOT_NEGATIVE_SUFFIX:
        return word[:-4]
    match = _NEGATIVE_PREFIX.fullmatch(word)
    if match is None:
        return None
    if word.startswith(("non", "un")):
        # "university", "uniform", "underlying", "until" begin so without negating
        return None if word.startswith(("uni", "under", "unti")) else match["rest"]
    # in-, im-, ir-, il-, dis- negate adjectives ("incomplete", "impossible", "irrotational",
    # "dissimilar"), not the nouns and verbs that merely begin so ("implementation",
    # "information", "indicate", "internal")
    if match["rest"].endswith(_ADJECTIVE_ENDINGS) and not word.startswith(_NOT_NEGATED):
        return match["rest"]
    return None


def affix_negations(text: str) -> list[tuple[str, ...]]:
    """What the text negates by affix, each as a negation's scope: "pressure free and
    irrotational" -> (press,), (rotat,); "free of dementia" -> (demen,). They answer a
    negation in words of the other text ("exerts no pressure and does not rotate"), never
    ask for one."""
    marked = re.sub(r"[,;:]", f" {_BREAK} ", comparable_text(text))
    words = re.findall(r"[a-z]+", fold_for_match(marked))
    out: list[tuple[str, ...]] = []
    plain = set()
    # "free of dementia at baseline": said of a group at one time, not undone by the word
    # said plainly later ("423 developed dementia"), so kept apart from the plain-word check
    freed_of: list[tuple[str, ...]] = []
    freed = -1  # the place of the word "free of" negates
    for n, (before, word) in enumerate(zip(["", *words], words, strict=False)):
        after = words[n + 1] if n + 1 < len(words) else ""
        if word == "free" and after == "of" and n + 2 < len(words):  # "free of dementia"
            freed_of.append((words[n + 2][:5],))
            freed = n + 2
            continue
        if n == freed:
            continue
        if word == "free" and len(before) > 3 and before not in _FILLER:
            out.append((before[:5],))
            continue
        rest = after if word == "non" and len(after) > 2 else _affixed(word)  # "non-empty"
        if rest is not None:
            # what is said to be so: "an implementation ... is unavailable" answers "no
            # implementation"
            out.append((rest[:5], *_subject(words[:n])))
        elif after != "free" and before != "non":
            plain.add(word[:5])
    # "unrestricted size ... do restrict the volume": the word said plainly too is affirmed
    return [scope for scope in out if scope[0] not in plain] + freed_of


_BREAK = "qqbreak"  # a clause's end, in a folded text


def _subject(before: list[str]) -> tuple[str, ...]:
    """The stems of the content words of the clause before a word (at most eight, nearest
    first): what the word says is so."""
    out: list[str] = []
    for word in reversed(before):
        if word == _BREAK:
            break
        if word not in _FILLER and word not in _AUXILIARY and len(word) > 2:
            out.append(word[:5])
        if len(out) == 8:
            break
    return tuple(out)


def _same_predicate(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two negations govern the same thing: they share the first word one of them governs
    ("no association between" and "did not find an association"); two that govern nothing
    readable ("... but B did not.") match each other."""
    if not a or not b:
        return not a and not b
    # "stable" and "stability" are one word, though their five letters differ
    return a[0] in b or b[0] in a or len({w[:4] for w in a} & {w[:4] for w in b}) >= 2


def negation_facts(
    claim: str, passage: str, core: str
) -> tuple[list[Difference], list[Difference]]:
    """Each negation of the claim must be matched by one of the passage governing the same
    words (or by an affix there: "does not rotate" by "irrotational", or a word that says
    little of it: "lack of trust" by "low trust"); each negation of the sentence stating the
    claim that governs the claim's words must be matched by one of the claim ("no
    association between ... and dementia" against "an association between ... and
    dementia"; "does not allow client scripts to write back" against "client scripts can
    write back"). A negation of the page governing something the claim does not speak of
    ("does not require that ...") says nothing of it."""
    against: list[Difference] = []
    missing: list[Difference] = []
    mine = negation_scopes(claim)
    in_span = negation_scopes(passage)
    core_stems, claim_stems = _stems(core), _stems(claim)
    answers = affix_negations(passage) + diminished(passage)
    unmatched = _unmatched(mine, in_span, answers, _doubled(claim))
    if unmatched:
        # against only where the sentence affirms what the negation governs first: "are not
        # used for primary thromboprophylaxis" is not denied by a sentence on when filters
        # "should be considered" for thromboprophylaxis
        difference = Difference("negation", _negation_phrase(claim), "affirms it")
        head = unmatched[0][0] if unmatched[0] else None
        denied = head in core_stems and not (head is not None and _set_apart(claim, head))
        (against if denied else missing).append(difference)
    claim_words = {w[:8] for w in re.findall(r"[a-z]+", fold_for_match(claim))}
    said = []
    for words in _governed(core):  # the sentence's negations, each read once
        s = _scope(words)
        clause = {w[:5] for w in words}
        whole = bool(words) and words[0] in _EVIDENTIAL
        # the first word governed, in full: "without thromboprophylaxis" is no denial of a
        # claim's "thrombosis", though the two begin alike
        first = words[0][:8] if words else ""
        if (
            not s
            or (s[0] in claim_stems and (len(first) < 8 or first in claim_words))
            or (whole and claim_stems.intersection(s))
            or len(claim_stems & clause) >= CLAUSE_SHARED
        ):
            # answered by a claim's negation governing any two words of its clause: "no
            # association between the number of negative life events and the incidence of
            # dementia" by "did not predict incident dementia"
            said.append((*s, *sorted(clause - set(s))))
    if said and _unmatched(
        said, mine, affix_negations(claim) + _little(claim, core), _doubled(core)
    ):
        against.append(Difference("negation", "affirms it", _negation_phrase(core)))
    against += _prefix_denied(claim, core, mine)
    return against, missing


def _little(claim: str, core: str) -> list[tuple[str, ...]]:
    """What the claim says there is little of, where the core does not say so too: "how
    little capacity" answers no "do not complain about the limited capacity" (the page says
    little of the capacity too, and denies something else of it)."""
    own = {w for scope in diminished(core) for w in scope}
    return [d for d in diminished(claim) if not own.intersection(d)]


def _set_apart(claim: str, head: str) -> bool:
    """Whether the claim's "without X" sets a group apart ("2,462 people without dementia at
    baseline") while the claim says X happened too ("423 went on to develop dementia"): the
    page's plain X, the later event, is no denial of it."""
    words = re.findall(r"[a-z]+", fold_for_match(comparable_text(claim)))
    places = [n for n, w in enumerate(words) if w[:5] == head]
    return len(places) > 1 and any("without" in words[max(0, n - 3) : n] for n in places)


# words that leave out what follows: "beyond those used for testing" is "non-test"
_SETS_ASIDE = (
    r"\b(?:beyond|besides|excluding|except|other than|apart from|aside from|outside|"
    r"not counting)"
)


# "non-zero elements": a hyphenated "non" that a claim dropping it turns around
_NON = re.compile(r"\bnon ([a-z]{3,})\b")  # folded: the hyphen is a space


def _prefix_denied(claim: str, core: str, negated: Sequence[tuple[str, ...]]) -> list[Difference]:
    """The word the stating sentence denies by a hyphenated "non-" ("all non-zero elements")
    that the claim states plainly ("every element, zero entries included"): the claim says
    the opposite of the page. A claim that negates the word itself ("not zero") or keeps
    the prefix agrees."""
    claim_text = fold_for_match(comparable_text(claim))
    out = []
    for match in _NON.finditer(fold_for_match(comparable_text(core))):
        word = match[1]
        if re.search(rf"\bnon-?\s?{word}", claim_text) or not re.search(rf"\b{word}", claim_text):
            continue
        if re.search(rf"{_SETS_ASIDE}(?:\s+\w+){{0,4}}\s+{word}", claim_text):
            continue  # "clusters beyond those used for testing" says "non-test" in words
        if any(word[:5] in scope for scope in negated):
            continue
        out.append(Difference("negation", word, f"non-{word}"))
    return out


# the claim's words a page's negated clause must hold to be about the claim's predicate when
# its first governed word is not one of them ("does not allow client scripts to write back")
CLAUSE_SHARED = 2
# words that say there is little of what follows: they answer a negation of it ("lack of
# patient trust" and "low trust"), never ask for one
_DIMINISHERS = frozenset(
    """low poor poorly little limited insufficient inadequate few rare rarely seldom hardly
    barely minimal negligible weak scarce scant""".split()  # noqa: SIM905
)


def diminished(text: str) -> list[tuple[str, ...]]:
    """What the text says there is little of, each as a negation's scope: "low trust in
    lower levels" -> (trust, lower, level)."""
    words = [w for w in re.findall(r"[a-z]+", fold_for_match(comparable_text(text)))]
    out = []
    for n, word in enumerate(words):
        if word in _DIMINISHERS:
            after = [w for w in words[n + 1 : n + 6] if w not in _FILLER and len(w) > 2]
            if after:
                out.append(tuple(w[:5] for w in after[:3]))
    return out


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
    which has been studied". Negations governing the same first word are paired first, so a
    looser pairing does not take the partner of an exact one ("not actionable nor sparse").
    ``affixes`` (negations by affix, words saying there is little of something) answer
    those of ``scopes`` not ``doubled``."""
    free = list(others)
    by_affix = list(affixes)
    left: list[tuple[int, tuple[str, ...]]] = []
    for n, scope in enumerate(scopes):
        exact = next((o for o in free if o and scope and o[0] == scope[0]), None)
        if exact is not None:
            free.remove(exact)
        else:
            left.append((n, scope))
    out = []
    for n, scope in left:
        match = next((o for o in free if _same_predicate(o, scope)), None)
        if match is not None:
            free.remove(match)
            continue
        double = n < len(doubled) and doubled[n]
        affix = None if double else next((a for a in by_affix if _answers(a, scope)), None)
        if affix is not None:
            by_affix.remove(affix)
            continue
        out.append(scope)
    return out


def _answers(affix: tuple[str, ...], scope: tuple[str, ...]) -> bool:
    """A negation by affix (or a word of little) answers a negation in words about the same
    thing: the word it negates is among the first the negation governs, or two of the words
    it is said of are ("an implementation ... is unavailable" for "no implementation of the
    exponentially scaled function")."""
    return affix[0] in scope[:3] or len(set(affix[1:]) & set(scope)) >= 2


def _negation_phrase(text: str) -> str:
    """A few words from the first negation, for the message."""
    text = comparable_text(text)
    found = _negations(text)
    if not found:
        return ""
    return " ".join(text[found[0].start() :].split()[:5])


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
    numbers = claim_numbers(claim, ignore_numbers)
    against, missing = number_facts(numbers, passage, core)
    negated_against, negated_missing = negation_facts(claim, passage, core)
    beside = _beside(passage, core)
    stating = _stating_too(numbers, beside, core)
    for sentence in stating:
        negated_against += negation_facts(claim, sentence, sentence)[0]
    against += negated_against
    missing += negated_missing
    known = {fold_for_match(n) for n in known_names}
    missing += [
        d for d in name_facts(claim, passage, ignore_names) if fold_for_match(d.draft) not in known
    ]
    bounds, unbounded = qualifier_facts(claim, core)
    for other in beside:
        bounds += counted_elsewhere(claim, other)
    against += (
        bounds
        + (
            [d for text in (core, *stating) for d in misassigned(claim, text, numbers)][:1]
            or misbound(claim, core, numbers)
            or retied(claim, core, numbers)
            or renamed(claim, core, numbers)
            or crossed_pairs(claim, core)
        )
        + direction_facts(claim, core)
    )
    missing += unbounded + direction_missing(claim, passage)
    return Facts(tuple(against), tuple(missing))
