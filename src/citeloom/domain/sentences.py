"""Where a sentence ends: the one rule chunking and quoting share.

The chunker ends chunks at these boundaries, and ``answer``/``check`` quote whole sentences
cut by the same rule, so a quoted sentence is always one the chunker kept whole (or a part of
one too long for a chunk). Blocks are joined by newlines in a chunk's text, and a block
boundary (a heading, a caption, a list item) ends a sentence too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_STARTS_LIKE_A_SENTENCE = re.compile(r"[\"'(\[]?[A-Z0-9]")


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
            end = len(line) if match is None else match.start() + (match[0][0] in "\"')]")
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
