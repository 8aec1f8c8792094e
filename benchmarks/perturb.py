"""Automatic perturbations of real sentences: false claims nobody wrote by hand.

Each changes one fact of a sentence a paper states, the way a careless citation does: a
number scaled or a digit changed, a unit swapped for another of the same kind, a negation
added or removed, a direction reversed ("increase" for "decrease"), a named method or dataset
replaced by another name from the same paper. The sentence itself is a true claim; each of
its perturbations is a false one: ``check`` must never judge it supported.

The rules here are mechanical string edits, written apart from citeloom's own readers: a
number is any run of digits, a unit any token of ``UNIT_SWAPS``, a name any token the shape
of one (capitals inside, digits, CamelCase).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

KINDS = ("number", "unit", "negation", "direction", "name")

# a unit and the one swapped in for it (same kind, another amount)
UNIT_SWAPS = {
    "ms": "s", "s": "ms", "ns": "μs", "μs": "ns", "ps": "ns", "min": "h", "h": "min",
    "mm": "cm", "cm": "mm", "nm": "μm", "μm": "nm", "km": "m", "m": "km",
    "mg": "g", "g": "mg", "kg": "g", "μg": "mg", "ml": "l", "mL": "L", "l": "ml", "L": "mL",
    "mM": "μM", "μM": "nM", "nM": "μM", "kHz": "MHz", "MHz": "GHz", "GHz": "MHz", "Hz": "kHz",
    "KB": "MB", "MB": "GB", "GB": "MB", "kb": "Mb", "eV": "keV", "keV": "MeV", "MeV": "GeV",
    "GeV": "TeV", "K": "mK", "mK": "K", "W": "mW", "mW": "W", "V": "mV", "mV": "V",
    "years": "months", "months": "weeks", "weeks": "days", "days": "hours", "hours": "minutes",
    "minutes": "seconds", "seconds": "minutes", "%": " times",
}  # fmt: skip
_UNIT = re.compile(
    r"(?<=\d)(?P<space>\s?)(?P<unit>"
    + "|".join(re.escape(u) for u in sorted(UNIT_SWAPS, key=len, reverse=True))
    + r")(?![A-Za-zμ])"
)
_NUMBER = re.compile(r"(?<![\w.,/-])(\d+(?:\.\d+)?)(?![\w]|[.,]\d|-[A-Za-z])")
# a year, a reference or the number of a part of the paper (a figure, an appendix, an
# additional file) is no finding to change
_NOT_A_FINDING = re.compile(
    r"(?:\b(?:fig(?:ure)?s?|tables?|eqs?|equations?|sections?|refs?|pp?|chapter"
    r"|appendix|appendices|files?|box(?:es)?)\.?\s*[(\[]?\s*$"
    r"|[\[(]\s*$|\b(?:19|20)\d\d\b\s*$)",
    re.I,
)
# "1." or "(2)" opening a sentence numbers an item of a list
_ENUMERATION = re.compile(r"\(?\d+[.)]\s")
_AUXILIARIES = re.compile(
    r"\b(?P<aux>is|are|was|were|can|could|will|would|should|may|might|must|has|have|had|does|"
    r"do|did)\b(?P<rest>\s+)(?!not\b|no\b|never\b)(?=[a-z])"
)
_NEGATION = re.compile(
    r"\b(?:not|never)\s+(?!only\b|just\b|least\b|necessarily\b)|\bno\s+(?=[a-z])(?!doubt\b|more\b|less\b|longer\b)"
    r"|(?<=\w)n't\b|\bcannot\b",
    re.I,
)
_DIRECTIONS = [
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("increasing", "decreasing"), ("higher", "lower"), ("larger", "smaller"),
    ("greater", "smaller"), ("more", "less"), ("faster", "slower"), ("above", "below"),
    ("better", "worse"), ("improved", "worsened"), ("improves", "worsens"),
    ("longer", "shorter"), ("maximum", "minimum"), ("positive", "negative"),
    ("strong", "weak"), ("stronger", "weaker"), ("rise", "fall"), ("rises", "falls"),
    ("gain", "loss"), ("increase in", "reduction in"), ("reduced", "increased"),
    ("reduces", "increases"), ("lowest", "highest"), ("most", "least"),
]  # fmt: skip
_SWAP = {a: b for pair in _DIRECTIONS for a, b in (pair, pair[::-1])}
_DIRECTION = re.compile(r"\b(" + "|".join(sorted(_SWAP, key=len, reverse=True)) + r")\b", re.I)
_NAME = re.compile(
    r"\b(?:[A-Z]{2,}[a-z]*[A-Z0-9]*s?|[A-Za-z]+\d+[A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*)\b"
)


@dataclass(frozen=True)
class Perturbation:
    kind: str
    original: str
    text: str
    changed: str  # what was changed: "12 -> 24"


def _number(sentence: str, rng: random.Random) -> Perturbation | None:
    found = [
        m
        for m in _NUMBER.finditer(sentence)
        if not _NOT_A_FINDING.search(sentence[: m.start()])
        and not (m.start() <= 1 and _ENUMERATION.match(sentence))
    ]
    if not found:
        return None
    match = rng.choice(found)
    token = match[1]
    decimals = len(token.split(".")[1]) if "." in token else 0
    value = float(token)
    how = rng.choice(("scale", "digit"))
    if how == "scale" or value == 0:
        new = value * rng.choice((2, 3, 10)) if value else 7.0
    else:
        digits = list(token)
        places = [i for i, d in enumerate(digits) if d.isdigit()]
        place = rng.choice(places)
        digits[place] = str((int(digits[place]) + rng.choice((3, 4, 5, 6, 7))) % 10)
        if digits[0] == "0" and len(places) > 1 and "." not in token[:2]:
            digits[0] = "9"
        new = float("".join(digits))
    written = f"{new:.{decimals}f}"
    if float(written) == value:
        return None
    text = sentence[: match.start(1)] + written + sentence[match.end(1) :]
    return Perturbation("number", sentence, text, f"{token} -> {written}")


def _unit(sentence: str, rng: random.Random) -> Perturbation | None:
    found = list(_UNIT.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    unit = match["unit"]
    swapped = UNIT_SWAPS[unit]
    text = sentence[: match.start("unit")] + swapped.strip() + sentence[match.end("unit") :]
    if swapped.startswith(" ") and not match["space"]:
        text = sentence[: match.start("unit")] + swapped + sentence[match.end("unit") :]
    return Perturbation("unit", sentence, text, f"{unit} -> {swapped.strip()}")


def _negation(sentence: str, rng: random.Random) -> Perturbation | None:
    negated = list(_NEGATION.finditer(sentence))
    if negated:  # remove one
        match = negated[0]
        cut = match[0]
        replacement = "can" if cut.lower() == "cannot" else ""
        text = sentence[: match.start()] + replacement + sentence[match.end() :]
        return Perturbation("negation", sentence, re.sub(r"\s{2,}", " ", text), f"-{cut.strip()}")
    found = list(_AUXILIARIES.finditer(sentence))
    if not found:
        return None
    match = found[0]
    text = sentence[: match.end("aux")] + " not" + sentence[match.end("aux") :]
    return Perturbation("negation", sentence, text, f"+not after {match['aux']}")


def _direction(sentence: str, rng: random.Random) -> Perturbation | None:
    found = list(_DIRECTION.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    word = match[1]
    swapped = _SWAP[word.lower()]
    if word[0].isupper():
        swapped = swapped[0].upper() + swapped[1:]
    text = sentence[: match.start(1)] + swapped + sentence[match.end(1) :]
    return Perturbation("direction", sentence, text, f"{word} -> {swapped}")


def _name(sentence: str, rng: random.Random, others: Sequence[str]) -> Perturbation | None:
    found = [m for m in _NAME.finditer(sentence) if not m[0].isdigit()]
    if not found or not others:
        return None
    match = rng.choice(found)
    name = match[0]
    shape = _shape(name)
    pool = [o for o in others if o != name and o not in sentence and _shape(o) == shape]
    if not pool:
        return None
    swapped = rng.choice(sorted(pool))
    if swapped.removesuffix("s") == name.removesuffix("s"):
        return None  # "GP" -> "GPs", "SSTable" -> "SSTables": the same name, nothing false
    text = sentence[: match.start()] + swapped + sentence[match.end() :]
    return Perturbation("name", sentence, text, f"{name} -> {swapped}")


def _shape(name: str) -> str:
    if any(c.isdigit() for c in name):
        return "digits"
    if name.isupper() or name.rstrip("s").isupper():
        return "acronym"
    return "camel"


def paper_names(text: str) -> list[str]:
    """Names of a paper in the shape ``_name`` swaps, seen at least twice (not a typo)."""
    counts: dict[str, int] = {}
    for match in _NAME.finditer(text):
        counts[match[0]] = counts.get(match[0], 0) + 1
    return [n for n, c in counts.items() if c >= 2 and len(n) >= 2 and not n.isdigit()]


def perturb(
    sentence: str, rng: random.Random, names: Sequence[str] = (), kinds: Sequence[str] = KINDS
) -> list[Perturbation]:
    """One perturbation of each kind the sentence allows."""
    out = []
    for kind in kinds:
        if kind == "number":
            made = _number(sentence, rng)
        elif kind == "unit":
            made = _unit(sentence, rng)
        elif kind == "negation":
            made = _negation(sentence, rng)
        elif kind == "direction":
            made = _direction(sentence, rng)
        else:
            made = _name(sentence, rng, names)
        if made is not None and made.text != sentence:
            out.append(made)
    return out
