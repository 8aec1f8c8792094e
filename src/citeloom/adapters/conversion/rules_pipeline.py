"""Docling's standard PDF pipeline for the rules layout: no page images, no DocumentConverter.

The stock preprocessing stage renders every page at scale 1 for a layout model. The rules
layout labels text lines from their geometry and fonts, so that image is pure cost; the OCR of
a page without a text layer asks the backend for its own image at OCR resolution. Everything
else (layout postprocessing, cell assignment, reading order, heading hierarchy, assembly) is
Docling's own pipeline, unchanged.

``RulesPdfConverter`` runs that pipeline on one PDF the way ``DocumentConverter.convert`` does
(an ``InputDocument`` with its backend and page range, then ``pipeline.execute``). It exists
because the module of ``DocumentConverter`` imports every Docling pipeline, and the ASR one
imports torch at module level.
"""

from __future__ import annotations

from pathlib import Path

from docling.datamodel.backend_options import ThreadedDoclingParseBackendOptions
from docling.datamodel.base_models import (
    ConversionStatus,
    DoclingComponentType,
    ErrorItem,
    InputFormat,
    Page,
)
from docling.datamodel.document import ConversionResult, InputDocument
from docling.datamodel.pipeline_options import PdfPipelineOptions
from docling.datamodel.settings import DocumentLimits
from docling.models.postprocessing.reading_order_rb import (
    _AXIS_ALIGNMENT_TOLERANCE,
    _MAX_SEPARATOR_CANDIDATES,
)
from docling.models.stages.page_preprocessing.page_preprocessing_model import (
    PagePreprocessingModel,
)
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline
from docling_core.types.doc import BoundingBox

from citeloom.adapters.conversion.parse_backend import LeanParseBackend

# One decoding thread keeps ahead of the Python stages (about 30 of the 100 ms a page takes),
# and each thread holds its own native decode state: four (Docling's default) peaked 130 MB
# higher on a 46-page paper for the same CPU time.
PARSER_THREADS = 1


class _LeanPreprocessing(PagePreprocessingModel):
    """No page image (nothing reads it), and no text-quality score per line: it only feeds
    Docling's confidence report, which citeloom never reads."""

    def _populate_page_images(self, page: Page) -> Page:
        return page

    def _parse_page_cells(self, conv_res: ConversionResult, page: Page) -> Page:
        assert page._backend is not None
        page.parsed_page = page._backend.get_segmented_page()
        return page

    def _capture_shape_geometry(self, page: Page) -> Page:
        """The page's rules for Docling's reading-order separators, unless Docling would drop
        them all: it gives up on a page with more separator candidates than
        ``_MAX_SEPARATOR_CANDIDATES`` (a plot drawn as tens of thousands of tiny segments),
        but only after building an object for each. Such a page gets no rules here, which
        is the same outcome without that cost."""
        assert page._backend is not None and page.size is not None
        lines = page._backend.get_shape_lines() or []
        if sure_candidates(lines, page.size.width, page.size.height) > _MAX_SEPARATOR_CANDIDATES:
            page._shape_lines = page._shape_bounding_boxes = None
            return page
        page._shape_lines = lines
        page._shape_bounding_boxes = page._backend.get_connected_shape_bounding_boxes()
        return page


def sure_candidates(lines: list[BoundingBox], width: float, height: float) -> int:
    """How many of a page's rules Docling surely takes as separator candidates: thinner than
    its tolerance and longer than thick, inside the page (with a margin on every test, so
    that rounding can only make the count smaller than Docling's)."""
    thin = _AXIS_ALIGNMENT_TOLERANCE / 2
    count = 0
    for box in lines:
        w, h = box.r - box.l, box.b - box.t
        if h <= thin and w > 2 * h + thin:
            count += max(0.0, box.l) + thin < min(width, box.r)
        elif w <= thin and h > 2 * w + thin:
            count += max(0.0, box.t) + thin < min(height, box.b)
    return count


class RulesPdfPipeline(StandardPdfPipeline):
    def _init_models(self) -> None:
        super()._init_models()
        self.preprocessing_model = _LeanPreprocessing(options=self.preprocessing_model.options)


class RulesPdfConverter:
    """One PDF at a time through ``RulesPdfPipeline`` on the lean docling-parse backend."""

    def __init__(self, options: PdfPipelineOptions) -> None:
        self.pipeline = RulesPdfPipeline(options)  # type: ignore[arg-type]

    def convert(
        self, path: Path, raises_on_error: bool, page_range: tuple[int, int]
    ) -> ConversionResult:
        document = InputDocument(
            path_or_stream=path,
            format=InputFormat.PDF,
            backend=LeanParseBackend,
            backend_options=ThreadedDoclingParseBackendOptions(parser_threads=PARSER_THREADS),
            limits=DocumentLimits(page_range=page_range),
        )
        if document.valid:
            return self.pipeline.execute(document, raises_on_error=raises_on_error)
        backend = getattr(document, "_backend", None)
        if backend is not None:
            backend.unload()
        rejection = document._rejection
        reason = rejection.message if rejection is not None else "docling-parse cannot read it"
        error = ErrorItem(
            component_type=DoclingComponentType.USER_INPUT, module_name="", error_message=reason
        )
        return ConversionResult(input=document, status=ConversionStatus.FAILURE, errors=[error])
