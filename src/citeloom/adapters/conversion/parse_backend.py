"""docling-parse as the weight-free layout needs it: text lines, no page images.

Docling's threaded docling-parse backend renders every page while decoding it (the input of a
layout model) and, with char cells switched on, turns every character into a pydantic object.
The rules layout reads neither: it labels the text lines Docling assigns to clusters, from a
few numbers per character (box, font, glyph). This backend

- decodes without rendering; a page image is rendered by pdfium only when asked for, which is
  the OCR of a page without a text layer;
- materialises the line cells only (cell assignment, reading order and heading styles read
  them); characters stay inside docling-parse, words are not built;
- hands the characters to the layout stage as plain tuples (``LeanPageBackend.char_boxes``);
- reads again, through pdfium, a character docling-parse read as U+FFFD (a glyph its font
  names only in its built-in encoding, such as an "fi" ligature), on the pages that have one
  (``glyph_text``).

Line cells, shapes (reading-order separators) and bitmaps are the stock backend's, so Docling's
output for a born-digital page is unchanged. Measured in docs/adr/0006-conversion-speed.md.
Tied to the pinned docling-slim / docling-parse through ``docling_compat`` (the backend's
constructor and the page decoder).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

from docling.backend.docling_parse_backend import ThreadedDoclingParsePageBackend
from docling.utils import locks
from docling_core.types.doc import BoundingBox, CoordOrigin, Size
from docling_parse.pdf_parser import ContentConfig, ContentLevel
from PIL import Image

from citeloom.adapters.conversion.docling_compat import ParseDocumentBackend, page_decoder
from citeloom.adapters.conversion.glyph_text import (
    REPLACEMENT,
    Box,
    mend_lines,
    page_glyphs,
    read_boxes,
)

# One character: left, top, right, bottom (top-left origin, points), font name, glyph text.
CharBox = tuple[float, float, float, float, str, str]
Edges = tuple[float, float, float, float]  # left, top, right, bottom: top-left origin

_COMPUTE, _SKIP = ContentLevel.COMPUTE, ContentLevel.SKIP
_MATERIALIZE = ContentLevel.COMPUTE_AND_MATERIALIZE
# What docling-parse computes per page. Shapes stay: Docling's reading order uses the page's
# visible rules as separators. Words are never read downstream without a table model.
_DECODE = ContentConfig(
    char_cells_content_level=_COMPUTE,
    word_cells_content_level=_SKIP,
    line_cells_content_level=_MATERIALIZE,
    shapes_content_level=_COMPUTE,
    bitmaps_content_level=_MATERIALIZE,
    include_bitmap_bytes=False,
)


class LeanPageBackend(ThreadedDoclingParsePageBackend):
    def __init__(self, result: Any, document: LeanParseBackend) -> None:
        super().__init__(result, rendered=False)
        self._document = document
        self._mended = False

    def get_segmented_page(self) -> Any:
        """The stock segmented page (cached), its text lines holding what pdfium reads where
        docling-parse read a replacement character (``glyph_text``), mended once."""
        page = super().get_segmented_page()
        if page is not None and not self._mended:
            self._mended = True
            lines = [cell for cell in page.textline_cells if REPLACEMENT in cell.text]
            if lines:
                height = page.dimension.height
                # a rotated page's characters may have their corners in either order
                boxes: list[Box] = [
                    (
                        min(c.x0, c.x1),
                        height - max(c.y0, c.y1),
                        max(c.x0, c.x1),
                        height - min(c.y0, c.y1),
                    )
                    for c in page_decoder(self).get_char_cells()
                    if REPLACEMENT in c.text
                ]
                readings = self._document.read_glyphs(self.page_no, boxes)
                mend_lines(lines, list(zip(boxes, readings, strict=True)))
        return page

    def char_boxes(self) -> list[CharBox]:
        """The page's characters with visible text, top-left origin, as the decoder has them.

        The numbers Docling's char cells would carry after its top-left conversion (with the
        line cells' page height), without building a pydantic object per character."""
        page = self.get_segmented_page()
        if page is None:
            return []
        height = page.dimension.height
        out: list[CharBox] = []
        # x0..y1 is the box of the char's four corners (checked on every char of the corpus)
        for c in page_decoder(self).get_char_cells():
            text = c.text
            if text.strip():
                out.append((c.x0, height - c.y1, c.x1, height - c.y0, c.font_name, text))
        return out

    def get_shape_lines(
        self, *, horizontal: bool = True, vertical: bool = True, tolerance: float = 1e-3
    ) -> list[BoundingBox]:
        """The stock answer (the page's rules, top-left origin) with one box per segment
        instead of two: a vector plot has thousands of segments."""
        edges = self.shape_line_edges(horizontal=horizontal, vertical=vertical, tolerance=tolerance)
        return top_left_boxes(edges)

    def shape_line_edges(
        self, *, horizontal: bool = True, vertical: bool = True, tolerance: float = 1e-3
    ) -> list[Edges]:
        """``get_shape_lines`` as plain numbers (left, top, right, bottom; top-left origin):
        most segments are on plot pages whose rules are all dropped, and a pydantic box for
        each cost more than the count that drops them."""
        if not self.is_valid():
            return []
        decoder = page_decoder(self)
        lines = decoder.get_shape_lines(
            horizontal=horizontal, vertical=vertical, tolerance=tolerance
        )
        return _top_left_edges(lines, self.get_size().height)

    def get_connected_shape_bounding_boxes(self, *, tolerance: float = 0.0) -> list[BoundingBox]:
        if not self.is_valid():
            return []
        decoder = page_decoder(self)
        boxes = decoder.get_connected_shape_bounding_boxes(tolerance=tolerance)
        return top_left_boxes(_top_left_edges(boxes, self.get_size().height))

    def get_page_image(self, scale: float = 1, cropbox: BoundingBox | None = None) -> Image.Image:
        return self._document.render(self.page_no, self.get_size(), scale, cropbox)


def _top_left_edges(boxes: Any, height: float) -> list[Edges]:
    """Decoder boxes (left, bottom, right, top; bottom-left origin) from the top-left: the
    numbers of ``BoundingBox(...).to_top_left_origin(height)``."""
    return [(l, height - t, r, height - b) for l, b, r, t in boxes]


def top_left_boxes(edges: Iterable[Edges]) -> list[BoundingBox]:
    """docling-core boxes of edges already checked and ordered (``model_construct``: the
    decoder's floats need no validation, which was most of the cost of a box)."""
    top_left = CoordOrigin.TOPLEFT
    build = BoundingBox.model_construct
    return [build(l=l, t=t, r=r, b=b, coord_origin=top_left) for l, t, r, b in edges]


class LeanParseBackend(ParseDocumentBackend):
    """Docling's threaded docling-parse backend, decoding without a render and keeping the
    characters inside docling-parse."""

    def __init__(self, in_doc: Any, path_or_stream: BytesIO | Path, options: Any = None) -> None:
        self._pdfium: Any = None  # opened on the first page image asked for
        super().__init__(in_doc, path_or_stream, options, _DECODE)

    def iter_pages(self) -> Iterator[LeanPageBackend]:
        for result in self.page_results():
            yield LeanPageBackend(result, self)

    def _pdf(self) -> Any:
        """The PDF opened in pdfium, once (call with ``locks.pypdfium2_lock`` held)."""
        if self._pdfium is None:
            import pypdfium2 as pdfium

            source = self.path_or_stream
            data = source.getvalue() if isinstance(source, BytesIO) else source
            self._pdfium = pdfium.PdfDocument(data)
        return self._pdfium

    def read_glyphs(self, page_no: int, boxes: list[Box]) -> list[str | None]:
        """What pdfium reads in each box of a page (``glyph_text.read_boxes``)."""
        with locks.pypdfium2_lock:
            page = self._pdf()[page_no - 1]
            try:
                glyphs = page_glyphs(page)
            finally:
                page.close()
        return read_boxes(glyphs, boxes)

    def render(
        self, page_no: int, size: Size, scale: float, cropbox: BoundingBox | None
    ) -> Image.Image:
        """A page image from pdfium, for the pages that need one (OCR)."""
        with locks.pypdfium2_lock:
            page = self._pdf()[page_no - 1]
            try:
                crop = (0.0, 0.0, 0.0, 0.0)
                if cropbox is not None:
                    box = cropbox.to_bottom_left_origin(size.height)
                    crop = (box.l, box.b, size.width - box.r, size.height - box.t)
                bitmap = page.render(scale=scale, rotation=0, crop=crop)
                image = bitmap.to_pil().convert("RGB")
                bitmap.close()
            finally:
                page.close()
        return image

    def unload(self) -> None:
        with locks.pypdfium2_lock:
            if self._pdfium is not None:
                self._pdfium.close()
                self._pdfium = None
        super().unload()
