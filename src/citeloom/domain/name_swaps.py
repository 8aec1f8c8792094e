"""Another name in the claim's place: "company A" where the page says company B stressed it.

A careless author swaps one entity of a paper for another of the same paper: the wrong
method, dataset, group or condition. The sentence that states the claim then lacks the
claim's name and names another one in the same role. Most names a claim lacks are no such
swap, and calling them one is a false alarm a writer drops the checker for:

- the same name in another form: an abbreviation ("HR" for "hazard ratio", "En-It" for
  "English-Italian"), a derivation ("Swedish" for "Sweden", "Laplace" for "Laplacian"), a
  mutation written two ways ("R381E" for "Arg 381 to Glu"), a plural, a word glued on;
- a name of the writer's own that the paper never uses ("Montoya" for its authors);
- another name in the sentence that plays another part ("the observed CMB spectrum" against
  "the mass of the ULBDM"): only a rival whose neighbouring words are the claim name's
  neighbours ("representative of company A" against "representative from company B")
  stands in its place.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from citeloom.domain.abbreviations import ShortForms, abbreviated, shortened
from citeloom.domain.abstention import STOPWORDS
from citeloom.domain.facts import Difference
from citeloom.domain.names import CREDIT, LOWER, NOT_NAMES, UPPER, mentioned, names
from citeloom.domain.text import (
    NO_TEXT,
    Folded,
    comparable_words,
    fold_for_match,
    name_parts,
    normalise_text,
    spellings,
)

# "company A", "model 3", "group II": a noun and the letter or number that tells one of its
# kind from another; a pointer into the paper ("Table 2", "Section 4") is no such name
_LABEL = re.compile(
    r"\b(?P<head>[A-Za-z][a-z]{2,})\s(?P<mark>[A-Z]|[IVX]{1,4}|\d{1,4})\b(?![.,]\d)"
)
_POINTERS = frozenset(
    """table tables figure figures fig section sections chapter chapter equation eq appendix
    page pages step steps line lines panel part parts ref refs reference references version
    grade class type phase stage day days week weeks year years month months hour hours
    minute minutes time times level levels number order""".split()  # noqa: SIM905
)
# a reference in brackets after a name: "Wiltshire [12]", "Wiltshire (2007)"
_REFS = r"(?:\s*(?:\[[^\]]*\]|\([^)]*\)))?"
# a person opening the sentence as the source of a finding: "Wiltshire demonstrated"; a name
# for a swap only, since a claim may credit whom the page calls "they"
_REPORTER = re.compile(
    rf"([{UPPER}][{LOWER}]+(?:-[{UPPER}][{LOWER}]+)?){_REFS}\s+"
    r"(?:demonstrated|showed|found|reported|proposed|argued|presented|observed|concluded|"
    r"suggested|noted|derived|introduced)\b"
)
# ... unless that opener is what did the finding, not who: "Experiments showed"
_SUBJECTS = frozenset(
    """results studies study experiments experiment authors researchers analysis analyses data
    findings simulations simulation measurements tests trials models model observations
    calculations investigators others work research evidence we they it he she our their its
    his her one both each all most many some several previous recent earlier later surveys
    survey participants patients respondents reviewers scientists""".split()  # noqa: SIM905
)
ROLE_WIDTH = 3  # content words either side of a name that say what part it plays
REACH = 8  # ... looked for this many words away at most
SHARED_ROLE = 2  # role words two names share to stand in each other's place ("the observed
# CMB spectrum requires ... orders" and "the mass of the ULBDM must be five orders" share one)


def labels(text: str) -> list[str]:
    """The labelled members of a kind a sentence names: "company A", "model 3"."""
    return [
        f"{m['head']} {m['mark']}"
        for m in _LABEL.finditer(normalise_text(text))
        if m["head"].lower() not in _POINTERS and m["head"].lower() not in STOPWORDS
    ]


def claim_names(claim: str, ignore: Collection[str] = ()) -> list[str]:
    """The names a claim gives that another could stand in place of: its names, labels ("company
    A") and the person it opens with as a finding's source. Read from the claim with the
    paper's long forms shortened (``abbreviations.shortened``)."""
    return [*names(claim, ignore), *labels(claim), *_reporter(claim, ignore)]


def swapped_names(
    claim: str,
    core: str,
    ignore: Collection[str] = (),
    short_forms: ShortForms | None = None,
    paper: Folded = NO_TEXT,
    topic: Collection[str] = (),
) -> tuple[Difference, ...]:
    """The claim's name the stating sentence ``core`` lacks in every form, where that
    sentence names another of the same kind in the same role: one difference, or none.
    ``paper``: the cited paper's text, folded; a claim name it never mentions is the
    writer's own word, not another entity of the paper. ``topic``: the words the paper uses
    on most of its pages: its own subject ("MDRPM" in the MDRPM paper) is never swapped."""
    forms = short_forms if short_forms is not None else ShortForms()
    claim = shortened(claim, forms)
    mine = claim_names(claim, ignore)
    theirs = [*names(core, ignore), *labels(core)]
    # counted: "95% SD ... 95% CI" against "95% CI ... 95% CI" swaps one of two
    counts = {n: (count(n, claim), count(n, core)) for n in dict.fromkeys([*mine, *theirs])}
    core_words = comparable_words(core)
    absent = [
        n
        for n in mine
        if counts[n][0] > counts[n][1] and not said_otherwise(n, core, forms, core_words)
    ]
    other = [n for n in theirs if counts[n][1] > counts[n][0]]
    claim_words = comparable_words(claim)
    every = [*mine, *theirs]
    for name in absent:
        mine_role = role(claim, name, every)
        of_paper = not paper or mentioned(paper, name)
        for rival in other:
            if not _same_kind(name, rival) or _variants(name, rival):
                continue
            if not of_paper and not _same_head(name, rival):
                continue  # a writer's word, of no kind the page names
            if counts[rival][0] == 0 and said_in_words(rival, name, claim_words, forms):
                continue
            if len(mine_role & role(core, rival, every)) >= SHARED_ROLE or (
                _credited(claim, name) and _credited(core, rival)
            ):
                return (Difference("term", name, rival),)
    return ()


# a finding reported as someone's: "Wiltshire [12] demonstrated", "presented by Räsänen",
# "according to Buchert"
_REPORTS = (
    r"(?:show|demonstrat|f[oi]und|report|propos|argu|present|observ|conclud|suggest|not|"
    r"deriv|introduc)[a-z]*"
)


def _reporter(claim: str, ignore: Collection[str]) -> list[str]:
    """The person a claim opens with as the source of its finding, unless the cited paper's
    own author: "Wiltshire demonstrated that ..." -> Wiltshire."""
    opener = _REPORTER.match(normalise_text(claim))
    if opener is None or opener[1].lower() in _SUBJECTS or opener[1] in NOT_NAMES:
        return []
    skip = {p for n in ignore for p in fold_for_match(n).split()}
    return [] if fold_for_match(opener[1]) in skip else [opener[1]]


def _same_head(one: str, other: str) -> bool:
    """Two names of several parts ending in the same noun: "GNU Scientific Library" and
    "Cephes Mathematical Library", "jModelTest" and "ProtTest" are two of a kind, whether or
    not the paper names the first: a name of the writer's own standing where the page names
    its tool is another tool, not a word of the writer's. Labels of one noun ("Arg 781",
    "Arg 381") are of a kind too."""
    if _head(one) is not None:  # "Arg 781" against "Arg 381": the page's kind of label
        return _head(one) == _head(other)
    a, b = name_parts(one), name_parts(other)
    return len(a) > 1 and len(b) > 1 and a[-1] == b[-1] and a != b


def _credited(text: str, name: str) -> bool:
    """``text`` gives ``name`` as the source of a finding ("Johansson et al. (2010) found",
    "Wiltshire demonstrated", "presented by Räsänen"): two names so given stand in each
    other's place whatever verbs report them. Only a person's name is credited so: a method
    "shows" nothing of its own."""
    written = normalise_text(text)
    if re.search(rf"\b{re.escape(name)}{CREDIT}", written):
        return True
    if shape(name) != "words" or " " in name:
        return False
    person = re.escape(name)
    return (
        re.search(rf"\b{person}{_REFS}\s+(?:has |have |had )?{_REPORTS}\b", written) is not None
        or re.search(rf"\b{_REPORTS}\s+by\s+{person}\b", written) is not None
        or re.search(rf"\baccording to\s+{person}\b", written) is not None
    )


def _of_topic(name: str, topic: Collection[str]) -> bool:
    parts = comparable_words(name)
    return bool(parts) and all(w in topic for w in parts)


def role(text: str, name: str, every: Collection[str] = ()) -> set[str]:
    """The stems of the content words beside ``name`` in ``text`` (``ROLE_WIDTH`` either
    side): what it is, does or undergoes there. Words of names of its kind (``every``) are not
    its role: "SHAP and LIME" does not make LIME a part SHAP plays; "the Acoustic Peaks of
    the CMB" does make the peaks the CMB's."""
    words = name_parts(text)
    named = {w for n in every if _same_kind(n, name) for w in name_parts(n)}

    def content(w: str) -> bool:
        return len(w) > 2 and w not in STOPWORDS and not w.isdigit() and w not in named

    out: set[str] = set()
    for parts in spellings(name):
        size = len(parts)
        for i in range(len(words) - size + 1):
            if tuple(words[i : i + size]) != parts:
                continue
            before = [w for w in reversed(words[max(0, i - REACH) : i]) if content(w)]
            after = [w for w in words[i + size : i + size + REACH] if content(w)]
            out |= {w[:5] for w in before[:ROLE_WIDTH] + after[:ROLE_WIDTH]}
    return out


def said_otherwise(
    name: str, text: str, forms: ShortForms, text_words: list[str] | None = None
) -> bool:
    """The text names ``name`` in another form: the paper's abbreviation of it (or its long
    form), its initials ("hazard ratio" for HR), a word derived from it ("Sweden" for
    Swedish), the number inside a mutation or position ("Arg 381" for R381E)."""
    core_words = comparable_words(text) if text_words is None else text_words
    words = frozenset(core_words)
    if abbreviated(name, words, forms):
        return True
    if _initials(name, core_words, frozenset()) is not None:
        return True
    if " " not in name and name.isalpha() and not name.isupper():
        key = fold_for_match(name)
        need = max(4, len(key) - 3)
        if any(_common_prefix(key, w) >= need for w in words):
            return True
    digits = re.findall(r"\d{2,}", name)
    return bool(digits) and all(d in words for d in digits)


def _initials(acronym: str, words: list[str], skip: frozenset[str]) -> tuple[int, int] | None:
    """Where consecutive words of three letters or more (none of ``skip``) have an acronym's
    letters as their initials ("hazard ratio" for HR): the first and last word's positions."""
    letters = fold_for_match(acronym).replace(" ", "")
    if not (acronym.isupper() and 2 <= len(letters) <= 6 and letters.isalpha()):
        return None
    size = len(letters)
    for i in range(len(words) - size + 1):
        run = words[i : i + size]
        if "".join(w[0] for w in run) == letters and all(len(w) > 2 and w not in skip for w in run):
            return i, i + size - 1
    return None


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _same_kind(one: str, other: str) -> bool:
    """Names written the same way (``shape``); members of one kind: labels of the same noun
    ("company A", "company B"), residues or positions of one letter code ("His331", "His
    388")."""
    one_head, other_head = _head(one), _head(other)
    if one_head or other_head:
        return one_head == other_head
    return shape(one) == shape(other)


_NUMBERED = re.compile(r"(?P<head>[A-Za-z]{2,})-?\d+")


def _head(name: str) -> str | None:
    """The noun a label or a numbered name is one of: "company A" -> company, "His331" ->
    his; None for any other name."""
    label = _LABEL.fullmatch(name)
    if label is not None:
        return label["head"].lower()
    numbered = _NUMBERED.fullmatch(name)
    return numbered["head"].lower() if numbered is not None else None


def _variants(one: str, other: str) -> bool:
    """Two writings of one name: the plural, a word glued on ("Google", "Googlebased"), or
    the shorter one's parts each beginning the longer one's ("En-It", "English-Italian")."""
    a, b = fold_for_match(one), fold_for_match(other)
    if a != b and (a == f"{b}s" or b == f"{a}s"):
        return True
    short, long = sorted((one, other), key=len)
    rest = long[len(short) :].lstrip("-")
    if long.startswith(short) and rest.isalpha() and rest.islower():
        return True  # "GaAs" is not within "AlGaAs"
    short_parts, long_parts = name_parts(short), name_parts(long)
    return len(short_parts) == len(long_parts) > 1 and all(
        b.startswith(a) for a, b in zip(short_parts, long_parts, strict=True)
    )


def said_in_words(short: str, name: str, words: list[str], short_forms: ShortForms) -> bool:
    """The claim writes out what ``short`` abbreviates: every word of the long form the paper
    defines, or consecutive content words with its letters as initials; and not as the
    definition of its own ``name`` beside them ("Cosmic Microwave Background (IAC)", "HS,
    urea breath test" name another thing)."""
    at: tuple[int, int] | None = None
    long = short_forms.get(fold_for_match(short))
    if long and long <= set(words):
        where = [i for i, w in enumerate(words) if w in long]
        at = (where[0], where[-1])
    if at is None:
        at = _initials(short, words, STOPWORDS)
    if at is None:
        return False
    parts = name_parts(name)
    named = [i for i in range(len(words)) if words[i : i + len(parts)] == parts]
    return not any(at[0] - len(parts) - 1 <= i <= at[1] + 1 for i in named)


def count(name: str, text: str) -> int:
    """How often a text writes a name, in any of its spellings ("C29", "C-29", ``domain.text
    .spellings``); an acronym only where it is not a plain word: the acronym "AND" is not
    the word "and"."""
    if name.isalpha() and name.isupper():
        pattern = re.compile(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", re.I)
        return sum(1 for m in pattern.finditer(normalise_text(text)) if not m[0].islower())
    # the text cut into parts as names are: "PaSa7b" and "PaSa-7b" hold "PaSa" once
    folded = f" {' '.join(name_parts(text))} "
    return sum(folded.count(f" {' '.join(words)} ") for words in spellings(name))


_NAMED_FOR = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")


def shape(name: str) -> str:
    """What kind of name it is written as: an acronym (BLEU), one with digits (ResNet-50),
    CamelCase (PaSa) or capitalised words (Expert Choice); a method is replaced by one of
    its kind, a paraphrase spells it out ("partitioned variable projection")."""
    if any(c.isdigit() for c in name):
        return "digits"
    if name.rstrip("s").isupper():
        return "acronym"
    if _NAMED_FOR.fullmatch(name):  # "Bethe-Salpeter", "Hong-Ou-Mandel": people's names
        return "words"
    if " " not in name and any(c.isupper() for c in name[1:]):
        return "camel"
    return "words"
