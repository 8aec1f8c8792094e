"""Notices in titles: what a title says it is about ("Erratum to: T", "Comment on T",
"Reply to comments", "Retraction notice: T") and the ``RETRACTED:`` mark a retracted entry's
title carries. Patterns only; which entry a notice names is inference's business."""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeloom.domain.relations.entries import QUOTES, TAGS

_RETRACTED = re.compile(r"^\s*(?:\[\s*retracted\s*\]|retracted(?:\s+article)?\s*:)\s*", re.I)
# Words that announce a notice about another paper. "Erratum to T", "Comment on T" and
# "Correction: T" are notices whatever follows; "Response to drought in maize" or "Correction
# to the Born approximation" are ordinary titles, so a weak word (reply, response,
# correction, commentary, discussion) counts only before a colon, a quoted title or "comment
# on". A notice names its paper by an exact title of the library, else nothing is certain.
_NOTICE_WORDS = {
    "erratum_of": r"errat(?:um|a)|corrigend(?:um|a)|(?:author\s+|publisher\s+)?correction|"
    r"addendum",
    "reply_to": r"reply|response|rejoinder|comments?|commentary|discussion",
    "retraction": r"retraction(?:\s+(?:note|notice|statement))?|notice\s+of\s+retraction",
}
_STRONG = re.compile(
    r"^(?:errat|corrigend|addend|retraction|notice|rejoinder|(?:author|publisher)\s)", re.I
)
_PREFIX = {
    kind: re.compile(
        rf"^\s*(?:a\s+)?(?P<word>{words})\b\s*(?P<link>(?:to|on|for|of)\b)?\s*"
        r"(?P<colon>[:.\-–—])?\s*"
        r"(?P<infix>(?:the\s+)?(?:comments?|reply|response)\s+(?:on|to|by)\b\s*:?\s*)?"
        r"(?:(?:the\s+)?(?:paper|article)\s*:?\s*)?(?P<title>.+)$",
        re.I,
    )
    for kind, words in _NOTICE_WORDS.items()
}
# "T: a reply to comments", "T - response to the comment"
_REPLY_SUFFIX = re.compile(
    r"^(?P<title>.+?)\s*[:\-–—]\s*(?:a\s+)?(?:reply|response|rejoinder)\s+to\s+(?:the\s+)?"
    r"(?:comments?|criticism|critics)(?:\s+.*)?$",
    re.I,
)


@dataclass(frozen=True)
class Notice:
    """What a title says it is about: a notice kind and the title of its paper."""

    kind: str  # "erratum_of", "reply_to" or "retraction"
    title: str  # the paper's title as the notice gives it
    strong: bool  # a notice whatever follows (else only when its title is in the library)


# Elsevier ends a notice's title with the paper's citation: "[Geoderma 310 (2018) 1-10]"
_CITED_AT_END = re.compile(r"\s*\[[^\[\]]*\d[^\[\]]*\]\s*$")


def notice_of(title: str) -> Notice | None:
    """The notice a title may announce ("Erratum to: T" -> erratum_of T)."""
    plain = _CITED_AT_END.sub("", TAGS.sub("", title)).strip()
    if match := _REPLY_SUFFIX.match(plain):
        return Notice("reply_to", match["title"], True)
    for kind, pattern in _PREFIX.items():
        match = pattern.match(plain)
        if match is None or not match["title"].strip(QUOTES + " "):
            continue
        word, link = match["word"].lower(), (match["link"] or "").lower()
        quoted = match["title"].lstrip()[:1] in QUOTES
        # "Erratum to T", "Comment on T"; "Reply to: T", "Response to 'T'", "Reply to
        # comment on T"; never "Response to drought" or "Correction to the Born approximation"
        strong = (
            bool(match["colon"])
            or quoted
            or bool(match["infix"])
            or (bool(_STRONG.match(word)) and link in ("to", "on", "for", "of"))
            or (word in ("comment", "comments") and link == "on")
        )
        return Notice(kind, match["title"].strip().strip(QUOTES), strong)
    return None


def retracted_title(title: str) -> tuple[str, str] | None:
    """The ``RETRACTED:`` mark of a title and the title without it, when it carries one."""
    plain = TAGS.sub("", title)
    match = _RETRACTED.match(plain)
    return (match[0].strip(), plain[match.end() :].strip()) if match else None


def ieee_retracted(title: str) -> bool:
    """IEEE titles a retracted paper itself "Notice of Retraction: <title>": a mark on the
    paper, not a notice about another entry, when no entry of the library has that title."""
    return re.match(r"\s*notice\s+of\s+retraction", title, re.I) is not None
