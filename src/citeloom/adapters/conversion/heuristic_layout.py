"""Docling layout model that runs ``layout_rules`` instead of a trained model.

Built by ``rules_pipeline.RulesPdfPipeline`` in place of Docling's layout model (never
registered with Docling's process-wide layout factory), so the standard PDF pipeline (cell
assignment, reading order, heading hierarchy, page assembly) runs unchanged around it. It also
OCRs pages without a usable text layer before labelling them: Docling runs layout before OCR,
so on an image-only page a layout stage would otherwise see nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from docling.datamodel.base_models import Cluster, LayoutPrediction, Page
from docling.datamodel.document import ConversionResult, InputDocument
from docling.datamodel.pipeline_options import BaseLayoutOptions, OcrOptions
from docling.models.base_layout_model import BaseLayoutModel
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel

from citeloom.adapters.conversion.docling_compat import page_backend
from citeloom.adapters.conversion.layout_lines import (
    Label,
    Line,
    PageContext,
    PageStats,
    body_leading,
    is_bold,
    is_italic,
)
from citeloom.adapters.conversion.layout_notes import LayoutNotes
from citeloom.adapters.conversion.layout_regions import group_lines
from citeloom.adapters.conversion.layout_rules import classify_lines
from citeloom.adapters.conversion.parse_backend import CharBox, LeanPageBackend
from citeloom.domain.models import ConversionWarning, WarningKind

_NUMBER_TOKEN = re.compile(r"^(?:[\dIVXLC]+|[A-Z])(?:\.\d+)*\.?$")

_DOCLING_LABELS: Mapping[Label, DocItemLabel] = MappingProxyType(
    {
        Label.TITLE: DocItemLabel.TITLE,
        Label.SECTION_HEADER: DocItemLabel.SECTION_HEADER,
        Label.TEXT: DocItemLabel.TEXT,
        Label.LIST_ITEM: DocItemLabel.LIST_ITEM,
        Label.CAPTION: DocItemLabel.CAPTION,
        Label.FOOTNOTE: DocItemLabel.FOOTNOTE,
        Label.FORMULA: DocItemLabel.FORMULA,
        Label.CODE: DocItemLabel.CODE,
        Label.PAGE_HEADER: DocItemLabel.PAGE_HEADER,
        Label.PAGE_FOOTER: DocItemLabel.PAGE_FOOTER,
        Label.PICTURE: DocItemLabel.PICTURE,
    }
)


class RulesLayoutOptions(BaseLayoutOptions):
    kind: ClassVar[str] = "citeloom_rules_layout"
    ocr_mode: Literal["auto", "always", "never"] = "auto"
    ocr_options: OcrOptions | None = None
    # A page with fewer native characters than this has no usable text layer.
    min_native_chars: int = 20


class NotedInputDocument(InputDocument):
    """A PDF to convert with the notes its layout stage makes: the notes travel with the
    document through Docling's stages (``conv_res.input``), so each conversion has its own
    and nothing is kept between conversions."""

    layout_notes: LayoutNotes | None = None

    def __init__(self, *, notes: LayoutNotes, **document: Any) -> None:
        super().__init__(**document)
        self.layout_notes = notes


def notes_of(conv_res: ConversionResult) -> LayoutNotes:
    """The notes of the document being converted (throwaway ones for a document that came
    without: nothing reads them)."""
    document = conv_res.input
    notes = document.layout_notes if isinstance(document, NotedInputDocument) else None
    return notes if notes is not None else LayoutNotes()


class RulesLayoutModel(BaseLayoutModel):
    def __init__(
        self,
        options: RulesLayoutOptions,
        artifacts_path: Any = None,
        accelerator_options: Any = None,
        **_: Any,
    ) -> None:
        self.options = options
        self._ocr = None
        self.ocr_problem: str | None = None
        if options.ocr_options is not None and options.ocr_mode != "never":
            from docling.datamodel.accelerator_options import AcceleratorOptions
            from docling.models.factories import get_ocr_factory

            try:
                self._ocr = get_ocr_factory(allow_external_plugins=False).create_instance(
                    options=options.ocr_options,
                    enabled=True,
                    artifacts_path=artifacts_path,
                    accelerator_options=accelerator_options or AcceleratorOptions(),
                )
            except Exception as error:  # Tesseract missing or a language pack missing
                self.ocr_problem = f"OCR unavailable ({str(error).split(',')[0]})"

    @classmethod
    def get_options_type(cls) -> type[BaseLayoutOptions]:
        return RulesLayoutOptions

    def predict_layout(
        self, conv_res: ConversionResult, pages: Sequence[Page]
    ) -> Sequence[LayoutPrediction]:
        notes = notes_of(conv_res)
        out = []
        for page in pages:
            ocrd = self._maybe_ocr(conv_res, page, notes)
            lines = _lines(page, ocrd)
            if page.size is None or not lines:
                out.append(LayoutPrediction(clusters=[]))
                continue
            # Statistics of this page alone: Docling hands pages over in batches whose make-up
            # depends on thread timing, and conversion must not depend on it.
            stats = PageStats()
            stats.add(lines)
            ctx = PageContext(
                width=page.size.width,
                height=page.size.height,
                page_no=page.page_no,
                body_size=stats.body_size,
                body_font=stats.body_font,
                mono_body=stats.mono_body,
                leading=body_leading(lines, stats.body_size),
            )
            classify_lines(lines, ctx)
            regions = group_lines(lines, ctx)
            title = [r for r in regions if r.label is Label.TITLE]
            if title and page.page_no == 1:
                notes.title = " ".join(r.text for r in title)
            out.append(LayoutPrediction(clusters=_clusters(regions, page)))
        return out

    def _maybe_ocr(self, conv_res: ConversionResult, page: Page, notes: LayoutNotes) -> bool:
        """OCR the page if it has no usable text layer (or always); True if it was."""
        native = sum(len(c.text.strip()) for c in page.cells if not c.from_ocr)
        if self.options.ocr_mode != "always" and native >= self.options.min_native_chars:
            return False
        if self.options.ocr_mode == "never":
            message = f"page {page.page_no} has no text layer and OCR is off ([conversion] ocr)"
            notes.warnings.append(ConversionWarning(WarningKind.OCR, message))
            return False
        if self._ocr is None:
            message = (
                f"page {page.page_no} has no text layer and was not OCR'd: {self.ocr_problem}. "
                "Install tesseract-ocr with the configured language packs."
            )
            notes.warnings.append(ConversionWarning(WarningKind.OCR, message))
            return False
        list(self._ocr(conv_res, [page]))
        notes.ocr_pages.add(page.page_no)
        return True


def _lines(page: Page, ocrd: bool = False) -> list[Line]:
    """The page's text lines with font size and weight read from their characters.

    A line's box is a poor size estimate (superscripts and accents inflate it); the character
    boxes docling-parse reports are the font's own em box, so their median is the font size.
    """
    if page.size is None:
        return []
    height = page.size.height
    backend = page_backend(page)
    # an OCR'd page's lines come from the image: the text layer's characters do not describe it
    chars = backend.char_boxes() if isinstance(backend, LeanPageBackend) and not ocrd else []
    rows = _char_rows(chars)
    lines = []
    for cell in page.cells:
        text = cell.text.strip()
        if not text:
            continue
        rect = cell.rect
        dx, dy = abs(rect.r_x1 - rect.r_x0), abs(rect.r_y1 - rect.r_y0)
        l, t, r, b = _top_left_box(rect, height)
        line = Line(
            text=text,
            l=l,
            t=t,
            r=r,
            b=b,
            font=getattr(cell, "font_name", "") or "",
            from_ocr=bool(cell.from_ocr),
            vertical=dy > dx and len(text) > 2,
            id=cell.index,
        )
        _read_chars(line, rows)
        lines.append(line)
    if any(x.from_ocr for x in lines):
        lines = [x for x in lines if not x.from_ocr] + merge_words([x for x in lines if x.from_ocr])
    return lines


def _top_left_box(rect: Any, height: float) -> tuple[float, float, float, float]:
    """(l, t, r, b) of a cell's rectangle from the top-left: the arithmetic of docling-core's
    ``to_bounding_box().to_top_left_origin()`` without two pydantic objects per line."""
    if rect.coord_origin != CoordOrigin.TOPLEFT:
        box = rect.to_bounding_box().to_top_left_origin(height)
        return box.l, box.t, box.r, box.b
    xs = (rect.r_x0, rect.r_x1, rect.r_x2, rect.r_x3)
    ys = (rect.r_y0, rect.r_y1, rect.r_y2, rect.r_y3)
    return min(xs), min(ys), max(xs), max(ys)


# A character as the line statistics read it: left, advance width, em height, font, glyph,
# then its centre and the faces of its font (for the containment test and the shares).
_Char = tuple[float, float, float, str, str, float, float, bool, bool]


def _char_rows(chars: Sequence[CharBox]) -> dict[int, list[_Char]]:
    """Characters bucketed by the vertical position of their centre (2-point rows)."""
    faces: dict[str, tuple[bool, bool]] = {}
    rows: dict[int, list[_Char]] = {}
    for l, t, r, b, font_name, text in chars:
        font = font_name or ""
        face = faces.get(font)
        if face is None:
            face = faces[font] = (is_bold(font), is_italic(font))
        rows.setdefault(int((t + b) / 4), []).append(
            (l, r - l, b - t, font, text, (l + r) / 2, (t + b) / 2, face[0], face[1])
        )
    return rows


def _read_chars(line: Line, rows: dict[int, list[_Char]]) -> None:
    left, right, top, bottom = line.l - 1, line.r + 1, line.t - 1, line.b + 1
    inside = [
        char
        for key in range(int(line.t / 2) - 1, int(line.b / 2) + 2)
        for char in rows.get(key, ())
        if left <= char[5] <= right and top <= char[6] <= bottom
    ]
    if not inside:
        return
    inside.sort()  # by x (then width, height, font, glyph)
    count = len(inside)
    sizes = sorted(c[2] for c in inside)
    widths = [c[1] for c in inside]
    fonts = Counter(c[3] for c in inside)
    bold = [c[7] for c in inside]
    lead = next((i for i, flag in enumerate(bold) if not flag), count)
    line.size = sizes[count // 2]
    line.font = fonts.most_common(1)[0][0]
    line.bold = sum(bold) / count
    line.italic = sum(c[8] for c in inside) / count
    line.run_in = 3 <= lead < count
    # Character boxes are advance widths: in a monospaced face they are all the same.
    mean = sum(widths) / count
    spread = (sum((w - mean) ** 2 for w in widths) / count) ** 0.5
    line.mono = count >= 6 and mean > 0 and spread / mean < 0.02
    # the widest gap between neighbouring characters, in ems: table cells merged into one
    # line. The gap after a leading number ("1   Introduction") is typesetting, not a cell.
    gaps = [b[0] - (a[0] + a[1]) for a, b in pairwise(inside)]
    first = next((i for i, gap in enumerate(gaps) if gap > 0.15 * line.size), None)
    if first is not None and _NUMBER_TOKEN.match("".join(c[4] for c in inside[: first + 1])):
        gaps[first] = 0.0
    line.max_gap = max(gaps, default=0.0) / line.size if line.size else 0.0


def merge_words(words: list[Line]) -> list[Line]:
    """OCR engines report words; join those on one baseline and close together into lines."""
    out: list[list[Line]] = []
    for word in sorted(words, key=lambda w: (w.l, w.t)):
        for line in out:
            last = line[-1]
            overlap = min(word.b, last.b) - max(word.t, last.t)
            if overlap > 0.5 * min(word.height, last.height) and -2 <= word.l - last.r <= 1.2 * max(
                word.height, last.height
            ):
                line.append(word)
                break
        else:
            out.append([word])
    merged = []
    for line in out:
        heights = sorted(w.height for w in line)
        median = heights[len(heights) // 2]
        top = min(w.t for w in line)
        merged.append(
            Line(
                text=" ".join(w.text for w in line),
                l=min(w.l for w in line),
                t=top,
                r=max(w.r for w in line),
                b=top + median,
                font=Counter(w.font for w in line).most_common(1)[0][0],
                from_ocr=True,
            )
        )
    return merged


def _clusters(regions: list, page: Page) -> list[Cluster]:
    assert page.size is not None
    width, height = page.size.width, page.size.height
    clusters = []
    for number, region in enumerate(regions):
        pad = 0.5
        clusters.append(
            Cluster(
                id=number,
                label=_DOCLING_LABELS[region.label],
                confidence=0.9,
                bbox=BoundingBox(
                    l=max(region.l - pad, 0),
                    t=max(region.t - pad, 0),
                    r=min(region.r + pad, width),
                    b=min(region.b + pad, height),
                    coord_origin=CoordOrigin.TOPLEFT,
                ),
            )
        )
    return clusters
