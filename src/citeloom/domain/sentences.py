"""Where a sentence ends: the one rule chunking and quoting share.

The chunker ends chunks at these boundaries, and ``answer``/``check`` quote whole sentences
cut by the same rule, so a quoted sentence is always one the chunker kept whole (or a part of
one too long for a chunk). Blocks are joined by newlines in a chunk's text, and a block
boundary (a heading, a caption, a list item) ends a sentence too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citeloom.domain.text import join_lines

# Abbreviations that end in a full stop without ending a sentence, in German and English
# scholarly prose ("z. B. Weizen", "u. a. Bodenerosion", "Abb. 3", "et al. (2020)"). Those that
# often do end one ("usw.", "etc.") are not here: a sentence cut there is a lesser harm than
# two sentences quoted as one.
ABBREVIATIONS = (
    *("z. B.", "z.B.", "u. a.", "u.a.", "d. h.", "d.h.", "z. T.", "z.T.", "u. U.", "u.U."),
    *("i. d. R.", "i.d.R.", "v. a.", "v.a.", "o. ä.", "u. ä.", "s. o.", "s. u."),
    *("e.g.", "e. g.", "i.e.", "i. e.", "et al.", "cf.", "vs.", "approx.", "resp."),
    *("Abb.", "Tab.", "Fig.", "Figs.", "Eq.", "Eqs.", "Gl.", "Kap.", "Abschn.", "Anh."),
    *("Nr.", "No.", "Nos.", "Bd.", "Vol.", "Hrsg.", "Aufl.", "Jg.", "Jh.", "S.", "Sp.", "pp."),
    *("vgl.", "bzw.", "ca.", "ggf.", "evtl.", "inkl.", "sog.", "bspw.", "insb.", "zzgl."),
    *("Dr.", "Prof.", "Mio.", "Mrd.", "Tsd."),
)
# A German ordinal is a number with a full stop: "am 3. Mai", "im 19. Jahrhundert", "die 2.
# Auflage". After these words, or before a month, it does not end a sentence.
_ORDINAL_AFTER = (
    *("am", "im", "vom", "zum", "beim", "ab", "bis", "seit"),
    *("der", "die", "das", "den", "dem", "des"),
)
_MONTHS = (
    "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
    "|Jahrhunderts?|Jh\\."
)
_CLOSERS = "\"')]\u201c\u201d\u2019\u00bb"  # " ' ) ] and the typographic closing quotes
_OPENERS = "\"'([\u201e\u201a\u201c\u2018\u00ab"  # and the German low quotes
_CAPITAL = "A-Z\u00c0-\u00d6\u00d8-\u00de0-9"  # a capital letter (Ä, Ö, Ü too) or a digit


def _pattern(text: str) -> str:
    """``text`` as a pattern of its own word(s), any white space where it has a space."""
    start = "\\b" if text[0].isalnum() else ""
    return start + re.escape(text).replace("\\ ", "\\s")


def _abbreviation_guards() -> str:
    """Lookarounds refusing a full stop of an abbreviation or an ordinal as a sentence end:
    at its end ("z. B.|"), and inside one of several parts ("z.| B.")."""
    forms = sorted({f for a in ABBREVIATIONS for f in (a, a[0].upper() + a[1:])})
    guards = [f"(?<!{_pattern(form)})" for form in forms]
    for form in forms:
        parts = form.split(" ")
        for cut in range(1, len(parts)):
            head, rest = " ".join(parts[:cut]), " ".join(parts[cut:])
            guards.append(f"(?!(?<={_pattern(head)})\\s+{_pattern(rest)})")
    for word in sorted({w for a in _ORDINAL_AFTER for w in (a, a.capitalize())}):
        guards += [f"(?<!\\b{word}\\s\\d\\.)", f"(?<!\\b{word}\\s\\d\\d\\.)"]
    return "".join(guards)


SENTENCE_END = re.compile(
    f"(?<=[.!?]){_abbreviation_guards()}"
    f"(?!(?:(?<=\\b\\d\\.)|(?<=\\b\\d\\d\\.))\\s+(?:{_MONTHS})(?!\\w))"
    f"[{re.escape(_CLOSERS)}]?\\s+(?=[{re.escape(_OPENERS)}]?[{_CAPITAL}])"
)
_STARTS_LIKE_A_SENTENCE = re.compile(f"[{re.escape(_OPENERS)}]?[{_CAPITAL}]")


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int  # character offsets in the text it was cut from
    end: int
    block_end: bool = False  # the last piece of its block (a line): it ends there


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text`` with their offsets, each exactly as it stands there (no
    re-spacing), split at block boundaries (newlines) and at ``SENTENCE_END``."""
    out: list[Sentence] = []
    offset = 0
    for line in text.split("\n"):
        cursor = 0
        for match in [*SENTENCE_END.finditer(line), None]:
            # the match starts right after the full stop; a closing quote belongs before it
            end = len(line) if match is None else match.start() + (match[0][0] in _CLOSERS)
            piece = line[cursor:end]
            stripped = piece.strip()
            if stripped:
                lead = len(piece) - len(piece.lstrip())
                start = offset + cursor + lead
                last = match is None or not line[match.end() :].strip()
                out.append(Sentence(stripped, start, start + len(stripped), last))
            cursor = match.end() if match else len(line)
        offset += len(line) + 1
    return out


def looks_whole(sentence: str, min_words: int = 5, block_end: bool = False) -> bool:
    """A sentence a reader can quote on its own: it starts like one (not the tail of a
    sentence a chunk overlap cut into), ends like one and has a few words. With
    ``block_end``, a sentence that ends its block counts as ended without a full stop (a
    formula line: "CR = 0.18/0.9 = 0.2")."""
    ended = block_end or sentence.rstrip("\"')]").endswith((".", "!", "?"))
    return (
        bool(_STARTS_LIKE_A_SENTENCE.match(sentence))
        and ended
        and len(sentence.split()) >= min_words
    )


_ENDED = re.compile(f"[.!?][{re.escape(_CLOSERS)}]*$")
_GOES_ON = re.compile("[a-z\u00df-\u00f6\u00f8-\u00ff]")


def run_on(blocks: Iterable[str]) -> list[str]:
    """Blocks of body text with each block that a column break, a page's figure or a
    conversion cut in mid-sentence joined to the block that goes on with it: one that ends
    without a full stop, followed by one that starts in lower case ("... by only the
    selected" | "scent as counterfactuals."). The sentence is then one sentence, as a reader
    reads it, not two halves that each state half of it."""
    out: list[str] = []
    for text in blocks:
        if out and _GOES_ON.match(text.lstrip()) and not _ENDED.search(out[-1].rstrip()):
            out[-1] = join_lines(out[-1], text)
        else:
            out.append(text)
    return out


# a sentence the text layer cut off: it ends on a word that cannot end one
_UNFINISHED = re.compile(
    r"\b(?:for|of|to|and|or|the|a|an|in|on|with|by|from|that|as|at|than|between|is|are|was|"
    r"were|not)\s*$"
)


def with_its_end(sentences: Sequence[str], at: int) -> str:
    """The sentence at ``at`` with the ones after it up to one that may end a sentence, where
    the text layer broke it off on a word no sentence ends on ("a strategy of population
    based screening and treatment for" | "H pylori infection to prevent IDA is not currently
    recommended."): a negation or a value of its end belongs to it."""
    parts = [sentences[at]]
    while _UNFINISHED.search(parts[-1]) and at + 1 < len(sentences):
        at += 1
        parts.append(sentences[at])
    return " ".join(parts)
