"""A PDF whose font names its ligatures and signs only in the font's own built-in encoding.

The font is a bare CFF font (embedded as FontFile3 /Type1C, as older TeX and Distiller PDFs
embed theirs) whose built-in encoding maps code 1 to the glyph named "fi", 2 to "fl", 3 to
"multiply" and 4 to "lessequal", and the letters to their ASCII codes. The PDF gives the font no
/Encoding and no /ToUnicode map, so a reader can only get those letters from the glyph names:
poppler's pdftotext does, and docling-parse reads U+FFFD there. Built with fontTools at run
time, so nothing binary is stored in the repository.
"""

from __future__ import annotations

import io
from pathlib import Path

# the codes of the glyphs only the font's names tell apart
SPECIAL = {"fi": 1, "fl": 2, "multiply": 3, "lessequal": 4}
_SIGNS = {"×": "multiply", "≤": "lessequal"}
_PUNCTUATION = {" ": "space", ".": "period", ",": "comma", "0": "zero", "1": "one"}
_PUNCTUATION |= {"2": "two", "3": "three", "4": "four", "5": "five", "8": "eight"}


def _glyph_name(ch: str) -> str:
    return _PUNCTUATION.get(ch, ch)


def _cff_font(letters: str) -> bytes:
    """A CFF font with a box for every glyph (what they look like does not matter), its
    built-in encoding holding the codes above."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    names = [".notdef", *SPECIAL, *sorted({_glyph_name(ch) for ch in letters})]
    builder = FontBuilder(1000, isTTF=False)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({})
    strings = {}
    for name in names:
        pen = T2CharStringPen(500, None)
        if name != "space":
            pen.moveTo((50, 0))
            pen.lineTo((450, 0))
            pen.lineTo((450, 700))
            pen.lineTo((50, 700))
            pen.closePath()
        strings[name] = pen.getCharString()
    builder.setupCFF("GlyphTest-Regular", {"FullName": "Glyph Test"}, strings, {})
    builder.setupHorizontalMetrics({name: (500, 50) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupOS2()
    builder.setupPost()
    cff = builder.font["CFF "].cff
    encoding = [".notdef"] * 256
    for name, code in SPECIAL.items():
        encoding[code] = name
    for ch in letters:
        encoding[ord(ch)] = _glyph_name(ch)
    cff.topDictIndex[0].Encoding = encoding
    out = io.BytesIO()
    cff.compile(out, builder.font)
    return out.getvalue()


def _codes(line: str) -> bytes:
    """A line in the font's codes: "fi" and "fl" as their ligature glyphs, × and ≤ as signs."""
    out = bytearray()
    i = 0
    while i < len(line):
        pair = line[i : i + 2]
        if pair in ("fi", "fl"):
            out.append(SPECIAL[pair])
            i += 2
            continue
        ch = line[i]
        out.append(SPECIAL[_SIGNS[ch]] if ch in _SIGNS else ord(ch))
        i += 1
    return bytes(out)


def glyph_named_pdf(path: Path, lines: list[str]) -> Path:
    """Write a one-page PDF setting ``lines`` (ASCII, with fi, fl, × and ≤) in that font."""
    letters = {ch for line in lines for ch in line if ch not in _SIGNS}
    font = _cff_font("".join(sorted(letters)))
    content = b"BT /F1 11 Tf 14 TL 72 720 Td\n"
    for line in lines:
        content += b"<" + _codes(line).hex().encode() + b"> Tj T*\n"
    content += b"ET\n"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+GlyphTest-Regular /FirstChar 0 "
        b"/LastChar 255 /Widths [" + b" ".join([b"500"] * 256) + b"] /FontDescriptor 6 0 R >>",
        b"<< /Type /FontDescriptor /FontName /ABCDEF+GlyphTest-Regular /Flags 4 "
        b"/FontBBox [0 -200 1000 800] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 "
        b"/StemV 80 /FontFile3 7 0 R >>",
        b"<< /Subtype /Type1C /Length %d >>\nstream\n" % len(font) + font + b"\nendstream",
    ]
    pdf = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(pdf))
    return path
