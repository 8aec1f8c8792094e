"""Docling layout plugin that runs ``layout_rules`` instead of a trained model.

Registered with Docling's layout factory under its own options kind, so the standard PDF
pipeline (cell assignment, reading order, heading hierarchy, page assembly) runs unchanged
around it. It also OCRs pages without a usable text layer before labelling them: Docling runs
layout before OCR, so on an image-only page a layout stage would otherwise see nothing.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar, Literal

from docling.datamodel.base_models import Cluster, LayoutPrediction, Page
from docling.datamodel.document import ConversionResult
from docling.datamodel.pipeline_options import BaseLayoutOptions, OcrOptions
from docling.models.base_layout_model import BaseLayoutModel
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel

from citeloom.adapters.conversion.layout_rules import (
    Label,
    Line,
    PageContext,
    PageStats,
    classify_lines,
    group_lines,
    is_bold,
    is_italic,
)

PLUGIN_NAME = "citeloom"
_NUMBER_TOKEN = re.compile(r"^(?:[\dIVXLC]+|[A-Z])(?:\.\d+)*\.?$")

_DOCLING_LABELS = {
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


@dataclass
class LayoutNotes:
    """What the layout stage learned about a document that a DoclingDocument cannot carry:
    which pages it OCR'd, and the title (Docling's postprocessor turns title clusters into
    section headers, and page assembly would drop them otherwise)."""

    ocr_pages: set[int] = field(default_factory=set)
    title: str | None = None
    warnings: list[str] = field(default_factory=list)


# Keyed by Docling's document hash; the converter pops its document's notes after conversion.
_NOTES: dict[str, LayoutNotes] = {}
_NOTES_LOCK = threading.Lock()


def _notes(document_hash: str) -> LayoutNotes:
    with _NOTES_LOCK:
        return _NOTES.setdefault(document_hash, LayoutNotes())


def pop_notes(document_hash: str) -> LayoutNotes:
    with _NOTES_LOCK:
        return _NOTES.pop(document_hash, LayoutNotes())


class RulesLayoutOptions(BaseLayoutOptions):
    kind: ClassVar[str] = "citeloom_rules_layout"
    ocr_mode: Literal["auto", "always", "never"] = "auto"
    ocr_options: OcrOptions | None = None
    # A page with fewer native characters than this has no usable text layer.
    min_native_chars: int = 20


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
        key = conv_res.input.document_hash
        out = []
        for page in pages:
            self._maybe_ocr(conv_res, page, key)
            lines = _lines(page)
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
            )
            classify_lines(lines, ctx)
            regions = group_lines(lines, ctx)
            title = [r for r in regions if r.label is Label.TITLE]
            if title and page.page_no == 1:
                _notes(key).title = " ".join(r.text for r in title)
            out.append(LayoutPrediction(clusters=_clusters(regions, page)))
        return out

    def _maybe_ocr(self, conv_res: ConversionResult, page: Page, key: str) -> None:
        native = sum(len(c.text.strip()) for c in page.cells if not c.from_ocr)
        if self.options.ocr_mode != "always" and native >= self.options.min_native_chars:
            return
        if self.options.ocr_mode == "never":
            _notes(key).warnings.append(
                f"page {page.page_no} has no text layer and OCR is off ([conversion] ocr)"
            )
            return
        if self._ocr is None:
            _notes(key).warnings.append(
                f"page {page.page_no} has no text layer and was not OCR'd: {self.ocr_problem}. "
                "Install tesseract-ocr with the configured language packs."
            )
            return
        list(self._ocr(conv_res, [page]))
        _notes(key).ocr_pages.add(page.page_no)


def _lines(page: Page) -> list[Line]:
    """The page's text lines with font size and weight read from their characters.

    A line's box is a poor size estimate (superscripts and accents inflate it); the character
    boxes docling-parse reports are the font's own em box, so their median is the font size.
    """
    if page.size is None:
        return []
    height = page.size.height
    chars = page.parsed_page.char_cells if page.parsed_page is not None else []
    rows: dict[int, list[Any]] = {}
    for char in chars:
        if char.text.strip():
            box = char.rect.to_bounding_box().to_top_left_origin(height)
            rows.setdefault(int((box.t + box.b) / 4), []).append(
                (box, getattr(char, "font_name", None) or "", char.text)
            )
    lines = []
    for cell in page.cells:
        text = cell.text.strip()
        if not text:
            continue
        rect = cell.rect
        dx, dy = abs(rect.r_x1 - rect.r_x0), abs(rect.r_y1 - rect.r_y0)
        box = rect.to_bounding_box().to_top_left_origin(height)
        line = Line(
            text=text,
            l=box.l,
            t=box.t,
            r=box.r,
            b=box.b,
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


def _read_chars(line: Line, rows: dict[int, list[Any]]) -> None:
    # x, advance width, em height, font, character
    inside: list[tuple[float, float, float, str, str]] = []
    for key in range(int(line.t / 2) - 1, int(line.b / 2) + 2):
        for box, font, char in rows.get(key, ()):
            cx, cy = (box.l + box.r) / 2, (box.t + box.b) / 2
            if line.l - 1 <= cx <= line.r + 1 and line.t - 1 <= cy <= line.b + 1:
                inside.append((box.l, box.r - box.l, box.b - box.t, font, char))
    if not inside:
        return
    inside.sort()
    sizes = sorted(h for _, _, h, _, _ in inside)
    widths = [w for _, w, _, _, _ in inside]
    fonts = Counter(font for _, _, _, font, _ in inside)
    bold = [is_bold(font) for _, _, _, font, _ in inside]
    lead = next((i for i, flag in enumerate(bold) if not flag), len(bold))
    line.size = sizes[len(sizes) // 2]
    line.font = fonts.most_common(1)[0][0]
    line.bold = sum(bold) / len(bold)
    line.italic = sum(is_italic(font) for _, _, _, font, _ in inside) / len(inside)
    line.run_in = 3 <= lead < len(bold)
    # Character boxes are advance widths: in a monospaced face they are all the same.
    mean = sum(widths) / len(widths)
    spread = (sum((w - mean) ** 2 for w in widths) / len(widths)) ** 0.5
    line.mono = len(widths) >= 6 and mean > 0 and spread / mean < 0.02
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


def register() -> None:
    """Make the rules layout available to Docling's layout factory (idempotent)."""
    from docling.models.factories import get_layout_factory

    factory = get_layout_factory(allow_external_plugins=False)
    if RulesLayoutOptions not in factory.classes:
        factory.register(RulesLayoutModel, PLUGIN_NAME, __name__)


def register_table_plugins_v1_only() -> None:
    """Docling 2.143 builds every table-structure plugin when a PDF pipeline is created, and
    ``table_structure_model_v2`` imports torchvision at module level (which fails with the CPU
    torch, even with ``do_table_structure=False``). Offer only the v1 model, which imports its
    heavy dependencies lazily. Tested against the pinned docling-slim version."""
    from docling.models.plugins import defaults

    def table_structure_engines() -> dict[str, list[type]]:
        from docling.models.stages.table_structure.table_structure_model import (
            TableStructureModel,
        )

        return {"table_structure_engines": [TableStructureModel]}

    defaults.table_structure_engines = table_structure_engines
