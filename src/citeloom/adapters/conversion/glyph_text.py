"""Characters the text layer could not read, read again from the glyph names of their font.

An older PDF's Type 1 or CFF font may name a glyph ("fi", "fl", "ffi", "multiply",
"lessequal") only in the font's own built-in encoding, with no ToUnicode map. docling-parse
reads such a glyph as U+FFFD, the replacement character: "�le" for "file", "P � 0.05" for
"P ≤ 0.05". BM25 then cannot match the word, and a quote or a claim shows the replacement
character. pdfium, like poppler's ``pdftotext``, maps the glyph's name to its letters. This
module asks pdfium what is printed where docling-parse read a replacement character and puts
that into docling-parse's text lines; a character pdfium cannot read either stays as it was
(``domain.ligatures`` may still mend it from the document's words). Measured in
docs/adr/0035-text-layer-glyph-names.md.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

REPLACEMENT = "\ufffd"
Box = tuple[float, float, float, float]  # left, top, right, bottom; top-left origin, points
# A character's centre, top-left origin in the page as displayed, and pdfium's text for it.
Glyph = tuple[float, float, str]
_LONGEST = 4  # "ffi" and "ffl" are the longest ligatures; a longer reading is not one glyph
_SCALE = 100  # device units per point: pdfium's device coordinates are whole numbers
_NEAR = 0.5  # points a centre may lie outside a character's box (rounding of either reader)


def page_glyphs(page: Any) -> list[Glyph]:
    """Every character pdfium reads on a ``pypdfium2`` page that the PDF draws (not the
    spaces and line ends pdfium adds), at its centre in the page as displayed: a rotated
    page's characters in the frame docling-parse reports them in."""
    import pypdfium2.raw as pdfium_c

    to_display = _display_transform(page, pdfium_c)
    textpage = page.get_textpage()
    try:
        glyphs: list[Glyph] = []
        box = pdfium_c.FS_RECTF()
        for index in range(textpage.count_chars()):
            if pdfium_c.FPDFText_IsGenerated(textpage, index) == 1:
                continue
            code = pdfium_c.FPDFText_GetUnicode(textpage, index)
            if not code or chr(code).isspace():
                continue
            if not pdfium_c.FPDFText_GetLooseCharBox(textpage, index, box):
                continue
            x, y = to_display((box.left + box.right) / 2, (box.top + box.bottom) / 2)
            glyphs.append((x, y, chr(code)))
        return glyphs
    finally:
        textpage.close()


def _display_transform(page: Any, pdfium_c: Any) -> Any:
    """PDF user space to the displayed page, top-left origin, in points: pdfium's own
    ``FPDF_PageToDevice`` (rotation and crop box included), sampled at three points once."""
    width, height = page.get_width(), page.get_height()
    size_x, size_y = round(width * _SCALE), round(height * _SCALE)

    def device(x: float, y: float) -> tuple[float, float]:
        dx, dy = ctypes.c_int(), ctypes.c_int()
        pdfium_c.FPDF_PageToDevice(
            page.raw, 0, 0, size_x, size_y, 0, x, y, ctypes.byref(dx), ctypes.byref(dy)
        )
        return dx.value / _SCALE, dy.value / _SCALE

    ox, oy = device(0.0, 0.0)
    ax, ay = device(1000.0, 0.0)
    bx, by = device(0.0, 1000.0)
    xx, xy, yx, yy = (ax - ox) / 1000, (bx - ox) / 1000, (ay - oy) / 1000, (by - oy) / 1000
    return lambda x, y: (ox + xx * x + xy * y, oy + yx * x + yy * y)


def read_boxes(glyphs: Sequence[Glyph], boxes: Sequence[Box]) -> list[str | None]:
    """What pdfium reads inside each box (a character docling-parse could not read), or None
    where it reads nothing usable: nothing, a replacement character of its own, a control
    character, or more letters than one glyph holds."""
    readings: list[str | None] = []
    for left, top, right, bottom in boxes:
        text = "".join(
            ch
            for x, y, ch in glyphs
            if left - _NEAR <= x <= right + _NEAR and top - _NEAR <= y <= bottom + _NEAR
        )
        usable = 0 < len(text) <= _LONGEST and REPLACEMENT not in text and text.isprintable()
        readings.append(text if usable else None)
    return readings


def mend_lines(lines: Sequence[Any], chars: Sequence[tuple[Box, str | None]]) -> int:
    """Put the readings of unread characters into the text lines holding them; the number of
    characters mended.

    ``lines``: docling-parse's text-line cells (top-left origin) whose text holds a
    replacement character; ``chars``: each unread character's box and reading, in the order
    the text layer has them, which is the order of the line's replacement characters. A line
    whose replacement characters do not pair one to one with the characters found inside it
    is left as it was: a reading put at the wrong place would be worse than none."""
    mended = 0
    taken: set[int] = set()
    for line in lines:
        box = line.rect.to_bounding_box()
        left, right = box.l, box.r
        top, bottom = min(box.t, box.b), max(box.t, box.b)
        inside = [
            i
            for i, ((l, t, r, b), _) in enumerate(chars)
            if i not in taken
            and left - _NEAR <= (l + r) / 2 <= right + _NEAR
            and top - _NEAR <= (t + b) / 2 <= bottom + _NEAR
        ]
        pieces = line.text.split(REPLACEMENT)
        if len(inside) != len(pieces) - 1:
            continue
        taken.update(inside)
        text = pieces[0]
        for i, piece in zip(inside, pieces[1:], strict=True):
            reading = chars[i][1]
            text += (reading if reading is not None else REPLACEMENT) + piece
            mended += reading is not None
        line.text = text
    return mended
