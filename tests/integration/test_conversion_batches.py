"""A PDF converted in batches of pages (how a book is read, ADR 0024) gives what one conversion
of the whole PDF gives: the same blocks, headings, running heads dropped, page marks, and so
the same chunk ids, pages and section paths (real Docling on shared papers)."""

from __future__ import annotations

import pytest

from tests.conftest import PAPERS

pytestmark = [pytest.mark.real, pytest.mark.shared]

# (paper, pages a batch). Not every paper comes out the same: where a paragraph runs on over
# a batch's last page, Docling, which joins it when it sees both pages, leaves it in two
# blocks, and heading levels Docling reads from type style are judged within a batch
# (paperqa_pasa.pdf in batches of 4 shows both; ADR 0024). A batch is 50 pages, so a paper
# is almost always read at once.
CASES = (
    ("grobid_0807.3577.pdf", 4),  # 15 pages, numbered sections
    ("grobid_ZFN-A-054-0304-0272.pdf", 1),  # 2 pages printed 272-273: a batch a page
)


@pytest.mark.parametrize(("name", "batch"), CASES)
def test_a_pdf_converted_in_batches_of_pages_is_the_pdf_converted_at_once(name, batch, chunker):
    from citeloom.adapters.conversion.docling_converter import DoclingConverter
    from citeloom.domain.ids import chunk_id

    whole = DoclingConverter(page_batch=10_000).convert(PAPERS / name, "0" * 64)
    batched = DoclingConverter(page_batch=batch).convert(PAPERS / name, "0" * 64)
    assert len(whole.blocks) > 10
    assert batched == whole

    def cited(document):
        return [
            (chunk_id("doc", c.section_path, c.page_start, c.page_end, "m", c.index), c.text)
            for c in chunker.chunk(document, "doc")
        ]

    assert cited(batched) == cited(whole)
