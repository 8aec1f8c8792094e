"""The chunker with the real MiniLM tokenizer (fast: no model, only tokenizer.json)."""

from itertools import pairwise

import pytest

from citeloom.adapters.wordpiece_chunker import WordPieceChunker
from citeloom.domain.models import Block, BlockKind, ConvertedDocument
from citeloom.resources import MINILM_DIR


@pytest.fixture(scope="module")
def chunker() -> WordPieceChunker:
    return WordPieceChunker(MINILM_DIR, max_tokens=60, overlap_tokens=10, heading_context=2)


def doc(*blocks: Block) -> ConvertedDocument:
    return ConvertedDocument("x.pdf", "0" * 64, "T", 9, tuple(blocks), "test")


def H(text: str, level: int, page: int = 1) -> Block:
    return Block(text, BlockKind.HEADING, page, level)


def T(text: str, page: int = 1) -> Block:
    return Block(text, BlockKind.TEXT, page)


SENTENCE = "The marsh accreted sediment quickly after the breach was opened. "


def test_chunks_never_exceed_the_window(chunker):
    long = SENTENCE * 40
    chunks = chunker.chunk(doc(H("1 Results", 1), T(long)), "d")
    assert len(chunks) > 3
    assert all(c.token_count <= 60 for c in chunks)
    assert all(chunker.count(c.embed_text) <= 60 for c in chunks)


def test_a_single_overlong_sentence_is_cut_at_word_boundaries(chunker):
    words = " ".join(f"word{i}" for i in range(300))
    chunks = chunker.chunk(doc(T(words)), "d")
    assert all(chunker.count(c.embed_text) <= 60 for c in chunks)
    for c in chunks:
        assert all(w.startswith("word") and w[4:].isdigit() for w in c.text.split())


def test_chunks_do_not_cross_sections_and_carry_the_path(chunker):
    chunks = chunker.chunk(
        doc(
            H("2 Methods", 1),
            H("2.1 Sites", 2),
            T(SENTENCE * 3),
            H("2.2 Dating", 2),
            T("Cores were dated with lead-210. " * 3),
            H("3 Results", 1),
            T("Accretion was fast. " * 3),
        ),
        "d",
    )
    paths = [c.section_path for c in chunks]
    assert paths == [("2 Methods", "2.1 Sites"), ("2 Methods", "2.2 Dating"), ("3 Results",)]
    assert "lead-210" in chunks[1].text and "marsh" not in chunks[1].text
    assert chunks[1].embed_text.startswith("2 Methods > 2.2 Dating\n")


def test_tiny_section_flows_into_its_first_subsection(chunker):
    chunks = chunker.chunk(
        doc(H("2 Methods", 1), T("We used two sites."), H("2.1 Sites", 2), T(SENTENCE * 2)),
        "d",
    )
    assert len(chunks) == 1
    assert chunks[0].section_path == ("2 Methods", "2.1 Sites")
    assert chunks[0].text.startswith("We used two sites.")


def test_tiny_section_does_not_flow_into_a_sibling(chunker):
    chunks = chunker.chunk(
        doc(H("Abstract", 1), T("Short."), H("1 Introduction", 1), T(SENTENCE * 2)), "d"
    )
    assert [c.section_path for c in chunks] == [("Abstract",), ("1 Introduction",)]


def test_page_span_is_exact(chunker):
    chunks = chunker.chunk(
        doc(H("1 Intro", 1, 3), T("Page three text.", 3), T("Page four text.", 4)), "d"
    )
    assert (chunks[0].page_start, chunks[0].page_end) == (3, 4)


def test_consecutive_chunks_overlap_inside_a_section(chunker):
    chunks = chunker.chunk(
        doc(T(" ".join(f"Sentence number {i} ends here." for i in range(40)))), "d"
    )
    assert len(chunks) > 2
    for before, after in pairwise(chunks):
        tail = before.text.split()[-3:]
        assert " ".join(tail) in after.text


def test_title_and_formulas_are_not_chunked(chunker):
    chunks = chunker.chunk(
        doc(
            Block("A Title", BlockKind.TITLE, 1), Block("x = y^2", BlockKind.FORMULA, 1), T("Body.")
        ),
        "d",
    )
    assert [c.text for c in chunks] == ["Body."]


def test_heading_levels_that_skip_still_nest(chunker):
    chunks = chunker.chunk(
        doc(H("Part", 1), H("Deep", 3), T(SENTENCE), H("Next", 2), T(SENTENCE)), "d"
    )
    assert [c.section_path for c in chunks] == [("Part", "Deep"), ("Part", "Next")]
