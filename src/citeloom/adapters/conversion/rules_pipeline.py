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

from collections.abc import Iterable
from pathlib import Path

from docling.datamodel.backend_options import ThreadedDoclingParseBackendOptions
from docling.datamodel.base_models import ConversionStatus, InputFormat, Page
from docling.datamodel.document import (
    ConversionResult,
    build_invalid_input_errors,
)
from docling.datamodel.pipeline_options import ThreadedPdfPipelineOptions
from docling.datamodel.settings import DocumentLimits
from docling.models.base_layout_model import BaseLayoutModel
from docling.models.stages.page_preprocessing.page_preprocessing_model import (
    PagePreprocessingModel,
    PagePreprocessingOptions,
)
from docling.utils.profiling import TimeRecorder

from citeloom.adapters.conversion.docling_compat import (
    AXIS_ALIGNMENT_TOLERANCE,
    MAX_SEPARATOR_CANDIDATES,
    OwnModelsPdfPipeline,
    keep_shape_geometry,
    page_backend,
    release_input,
)
from citeloom.adapters.conversion.heuristic_layout import (
    NotedInputDocument,
    RulesLayoutModel,
    RulesLayoutOptions,
)
from citeloom.adapters.conversion.layout_notes import DoclingRun, LayoutNotes
from citeloom.adapters.conversion.parse_backend import (
    Edges,
    LeanPageBackend,
    LeanParseBackend,
    top_left_boxes,
)

# One decoding thread keeps ahead of the Python stages (about 30 of the 100 ms a page takes),
# and each thread holds its own native decode state: four (Docling's default) peaked 130 MB
# higher on a 46-page paper for the same CPU time.
PARSER_THREADS = 1


class LeanPreprocessing(PagePreprocessingModel):
    """Docling's page preprocessing without its page image (nothing reads it) and without a
    text-quality score per line (it only feeds Docling's confidence report, which citeloom
    never reads): the page's text lines, and its rules for the reading order."""

    def __call__(self, conv_res: ConversionResult, page_batch: Iterable[Page]) -> Iterable[Page]:
        for page in page_batch:
            backend = page_backend(page)
            if backend is None or not backend.is_valid():
                yield page
                continue
            with TimeRecorder(conv_res, "page_parse"):
                if self.options.capture_reading_order_separators:
                    _capture_rules(page, backend)
                if not self.options.skip_cell_extraction:
                    page.parsed_page = backend.get_segmented_page()
            yield page


def _capture_rules(page: Page, backend: LeanPageBackend) -> None:
    """The page's rules for Docling's reading-order separators, unless Docling would drop
    them all: it gives up on a page with more separator candidates than
    ``MAX_SEPARATOR_CANDIDATES`` (a plot drawn as tens of thousands of tiny segments), but
    only after building an object for each. Such a page gets no rules here, which is the
    same outcome without that cost."""
    assert page.size is not None
    edges = backend.shape_line_edges()
    if sure_candidates(edges, page.size.width, page.size.height) > MAX_SEPARATOR_CANDIDATES:
        keep_shape_geometry(page, None, None)
    else:
        lines = top_left_boxes(edges)
        keep_shape_geometry(page, lines, backend.get_connected_shape_bounding_boxes())


def sure_candidates(lines: Iterable[Edges], width: float, height: float) -> int:
    """How many of a page's rules Docling surely takes as separator candidates: thinner than
    its tolerance and longer than thick, inside the page (with a margin on every test, so
    that rounding can only make the count smaller than Docling's)."""
    thin = AXIS_ALIGNMENT_TOLERANCE / 2
    count = 0
    for left, top, right, bottom in lines:
        w, h = right - left, bottom - top
        if h <= thin and w > 2 * h + thin:
            count += max(0.0, left) + thin < min(width, right)
        elif w <= thin and h > 2 * w + thin:
            count += max(0.0, top) + thin < min(height, bottom)
    return count


class RulesPdfPipeline(OwnModelsPdfPipeline):
    """The standard pipeline with the lean preprocessing and the rules layout."""

    def make_preprocessing(self, options: PagePreprocessingOptions) -> PagePreprocessingModel:
        return LeanPreprocessing(options)

    def make_layout(self, artifacts_path: Path | None) -> BaseLayoutModel:
        options = self.pipeline_options.layout_options
        if not isinstance(options, RulesLayoutOptions):
            raise TypeError(f"the rules pipeline needs RulesLayoutOptions, not {options.kind}")
        return RulesLayoutModel(
            options=options,
            artifacts_path=artifacts_path,
            accelerator_options=self.pipeline_options.accelerator_options,
        )


class RulesPdfConverter:
    """One PDF at a time through ``RulesPdfPipeline`` on the lean docling-parse backend."""

    def __init__(self, options: ThreadedPdfPipelineOptions) -> None:
        self.pipeline = RulesPdfPipeline(options)

    def convert(self, path: Path, raises_on_error: bool, page_range: tuple[int, int]) -> DoclingRun:
        notes = LayoutNotes()
        document = NotedInputDocument(
            notes=notes,
            path_or_stream=path,
            format=InputFormat.PDF,
            backend=LeanParseBackend,
            backend_options=ThreadedDoclingParseBackendOptions(parser_threads=PARSER_THREADS),
            limits=DocumentLimits(page_range=page_range),
        )
        if document.valid:
            return DoclingRun(self.pipeline.execute(document, raises_on_error), notes)
        release_input(document)
        errors = build_invalid_input_errors(document)
        result = ConversionResult(input=document, status=ConversionStatus.FAILURE, errors=errors)
        return DoclingRun(result, notes)
