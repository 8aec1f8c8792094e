"""What a question asks for, so that the sentence quoted as its answer carries it.

A sentence about the right topic is not an answer yet: "how many sites were sampled?" needs a
number and "which solver ...?" needs a solver, in the sentence or its neighbours
(``missing_focus``). A paraphrase's own vocabulary ("waterlogged meadows" for salt marshes)
is never required: the words a question uses need not be the ones its answer uses.
"""

from __future__ import annotations

import re

from citeloom.domain.abstention import STOPWORDS, covered_terms
from citeloom.domain.quantities import quantities
from citeloom.domain.text import fold_for_match

_WANTS_NUMBER = re.compile(
    r"\b(?:how (?:many|much|long|large|big|small|fast|slow|often|high|low|far|old|wide|deep|"
    r"heavy|strong|accurate|precise)|what (?:\w+ )?(?:value|values|percentage|fraction|"
    r"proportion|share|number|rate|size|amount|level|temperature|speed|accuracy|score|ratio|"
    r"density|mass|frequency|range|duration|length|width|depth|count|factor|order of "
    r"magnitude)|at what (?:\w+ )?(?:rate|temperature|speed|value|age|energy|frequency))\b",
    re.I,
)
_WHICH = re.compile(r"\b(?:which|what kind of|what type of)\s+(?P<rest>[^?.]*)", re.I)


def wants_number(question: str) -> bool:
    """ "How many ...?", "what value ...?": an answer without a number does not answer it."""
    return bool(_WANTS_NUMBER.search(question))


_VERBISH = frozenset(
    "is are was were be been do does did has have had can could will would should may might".split()  # noqa: SIM905
)


def asked_kind(question: str) -> tuple[str, ...]:
    """The words a "which X" question asks for, up to its verb: "Which public code was used
    ...?" -> ("public", "code"); names before them are skipped. () for other questions."""
    match = _WHICH.search(question)
    if match is None:
        return ()
    kind: list[str] = []
    for word in re.findall(r"[A-Za-z][\w-]*", match["rest"]):
        if word.lower() in _VERBISH or (kind and word.endswith("ed")) or len(kind) == 3:
            break
        if word[0].islower() and word not in STOPWORDS and len(word) > 2:
            kind.append(word)
    return tuple(kind)


def missing_focus(question: str, context: str) -> list[str]:
    """What ``context`` (an answer sentence with its neighbours) lacks of the question's
    focus: a number, or any of the words a "which X" question asks for. [] when it carries
    all of it."""
    missing = []
    if wants_number(question) and not quantities(context):
        missing.append("a number")
    kind = asked_kind(question)
    if kind and not any(_carries(word, context) for word in kind):
        missing.append(kind[0])
    return missing


def _carries(word: str, context: str) -> bool:
    """A kind word is in the context when each of its parts is: "lead-210" in "dated with
    lead-210", "hard-to-reach" only where hard, to and reach all are."""
    parts = fold_for_match(word).split()
    return bool(parts) and covered_terms(parts, [context]) == set(parts)
