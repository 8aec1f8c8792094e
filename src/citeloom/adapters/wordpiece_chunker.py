"""Heading-aware chunking sized in the embedder's own word pieces.

Why not a character or whitespace budget: MiniLM sees at most 256 word pieces and silently
drops the rest, and scholarly text (formulas, names, numbers) splits into many more pieces
than words. Counting with the embedder's tokenizer is the only way to guarantee that every
word of a chunk is embedded.

Rules, in order of importance:
- a chunk never crosses a section boundary, except that a tiny section (a heading with a line
  or two) is carried into its first subsection, whose path already names it;
- ``embed_text`` (heading context + text) never exceeds ``max_tokens`` word pieces;
- chunks end at sentence boundaries; a sentence longer than a chunk is cut between words;
- consecutive chunks of one section overlap by about ``overlap_tokens`` word pieces;
- the page span is exactly the pages the chunk's text comes from.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from tokenizers import Tokenizer

from citeloom.adapters.embedding.tokenizer import tokenizer_fingerprint
from citeloom.domain.models import BlockKind, Chunk, ConvertedDocument
from citeloom.domain.sentences import SENTENCE_END as _SENTENCE_END

SKIPPED_KINDS = {BlockKind.TITLE, BlockKind.FORMULA}


@dataclass(frozen=True)
class _Piece:
    text: str
    page: int | None
    block: int  # index of the source block: pieces of one block are joined by spaces
    tokens: int


@dataclass
class _Section:
    path: tuple[str, ...]
    pieces: list[_Piece]


class WordPieceChunker:
    def __init__(
        self,
        tokenizer_dir: Path,
        max_tokens: int = 254,
        overlap_tokens: int = 40,
        heading_context: int = 2,
        min_section_tokens: int = 24,
    ) -> None:
        self._tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._tokenizer_id = tokenizer_fingerprint(tokenizer_dir)
        self.max_tokens = max_tokens
        self.overlap_tokens = overlap_tokens
        self.heading_context = heading_context
        self.min_section_tokens = min_section_tokens

    @property
    def tokenizer_id(self) -> str:
        return self._tokenizer_id

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    # ------------------------------------------------------------------ public
    def chunk(self, document: ConvertedDocument, doc_id: str) -> list[Chunk]:
        chunks: list[Chunk] = []
        for section in self._sections(document):
            context = self._context(section.path)
            budget = self.max_tokens - (self.count(context) if context else 0)
            pieces = [p for piece in section.pieces for p in self._fit(piece, budget)]
            for text, pages in self._pack(pieces, budget):
                embed_text = f"{context}\n{text}" if context else text
                known = [p for p in pages if p is not None]
                chunks.append(
                    Chunk(
                        doc_id=doc_id,
                        index=len(chunks),
                        text=text,
                        embed_text=embed_text,
                        section_path=section.path,
                        page_start=min(known) if known else None,
                        page_end=max(known) if known else None,
                        token_count=self.count(embed_text),
                    )
                )
        return chunks

    def embed_text(self, text: str, section_path: Sequence[str]) -> str:
        context = self._context(tuple(section_path))
        return f"{context}\n{text}" if context else text

    # ------------------------------------------------------------------ sections
    def _context(self, path: tuple[str, ...]) -> str:
        if not self.heading_context or not path:
            return ""
        context = " > ".join(path[-self.heading_context :])
        if self.max_tokens - self.count(context) < self.max_tokens // 2:
            return ""  # absurdly long headings: the text keeps the whole window
        return context

    def _sections(self, document: ConvertedDocument) -> list[_Section]:
        """Runs of body text under one heading path, tiny sections carried into a child."""
        raw: list[_Section] = []
        stack: list[tuple[int, str]] = []
        for number, block in enumerate(document.blocks):
            text = block.text.strip()
            if block.kind in SKIPPED_KINDS or not text:
                continue
            if block.kind is BlockKind.HEADING:
                level = max(block.level, 1)
                stack = [(lvl, txt) for lvl, txt in stack if lvl < level] + [(level, text)]
                continue
            path = tuple(txt for _, txt in stack)
            if not raw or raw[-1].path != path:
                raw.append(_Section(path, []))
            raw[-1].pieces.append(_Piece(text, block.page, number, self.count(text)))

        sections: list[_Section] = []
        carried: list[_Piece] = []
        for position, section in enumerate(raw):
            pieces = carried + section.pieces
            carried = []
            following = raw[position + 1] if position + 1 < len(raw) else None
            tiny = sum(p.tokens for p in pieces) < self.min_section_tokens
            if (
                tiny
                and following is not None
                and len(following.path) > len(section.path)
                and following.path[: len(section.path)] == section.path
            ):
                carried = pieces
                continue
            sections.append(_Section(section.path, pieces))
        return sections

    # ------------------------------------------------------------------ sizing
    def _fit(self, piece: _Piece, budget: int) -> list[_Piece]:
        """Sentences of a block (packing works sentence by sentence, so a chunk ends at a
        sentence and the overlap always fits); a sentence over the budget is cut at words."""
        out: list[_Piece] = []
        for sentence in _SENTENCE_END.split(piece.text):
            n = self.count(sentence)
            if n <= budget:
                out.append(_Piece(sentence, piece.page, piece.block, n))
            else:
                out.extend(
                    _Piece(part, piece.page, piece.block, self.count(part))
                    for part in self._cut(sentence, budget)
                )
        return out

    def _cut(self, text: str, budget: int) -> list[str]:
        """Cut at word boundaries so that each part has at most ``budget`` word pieces."""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        offsets = encoding.offsets
        parts: list[str] = []
        start_token = 0
        while start_token < len(offsets):
            end_token = min(start_token + budget, len(offsets))
            if end_token < len(offsets):
                # back off to the start of a word (a token preceded by whitespace)
                cut = end_token
                while cut > start_token + 1 and offsets[cut][0] == offsets[cut - 1][1]:
                    cut -= 1
                if cut > start_token + 1:
                    end_token = cut
            start_char = offsets[start_token][0]
            end_char = offsets[end_token - 1][1]
            parts.append(text[start_char:end_char].strip())
            start_token = end_token
        return [p for p in parts if p]

    def _tail(self, pieces: Sequence[_Piece]) -> _Piece | None:
        """The last ``overlap_tokens`` word pieces of a chunk, starting at a word."""
        if not self.overlap_tokens or not pieces:
            return None
        last = pieces[-1]
        encoding = self._tokenizer.encode(last.text, add_special_tokens=False)
        offsets = encoding.offsets
        if len(offsets) <= self.overlap_tokens:
            return last if len(pieces) > 1 else None
        start = len(offsets) - self.overlap_tokens
        while start < len(offsets) - 1 and offsets[start][0] == offsets[start - 1][1]:
            start += 1
        text = last.text[offsets[start][0] :].strip()
        return _Piece(text, last.page, last.block, self.count(text)) if text else None

    def _pack(
        self, pieces: Sequence[_Piece], budget: int
    ) -> Iterator[tuple[str, list[int | None]]]:
        current: list[_Piece] = []
        used = 0
        for piece in pieces:
            if current and used + piece.tokens > budget:
                yield self._join(current), [p.page for p in current]
                tail = self._tail(current)
                current, used = [], 0
                if tail is not None and tail.tokens + piece.tokens <= budget:
                    current, used = [tail], tail.tokens
            current.append(piece)
            used += piece.tokens
        if current:
            yield self._join(current), [p.page for p in current]

    @staticmethod
    def _join(pieces: Sequence[_Piece]) -> str:
        out = pieces[0].text
        for before, piece in pairwise(pieces):
            out += (" " if piece.block == before.block else "\n") + piece.text
        return out
