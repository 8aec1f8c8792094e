"""Every use of Docling's private API, each behind one small named function or class.

citeloom pins docling-slim exactly (``tests/test_project_health.py``) and leans on a few of
its internals: to read PDFs without rendering them, to build the PDF pipeline without the
table plugin that needs torchvision, and to skip work Docling would throw away. Nothing else
in citeloom touches a Docling name that starts with an underscore. Each use here has a smoke
test (``tests/integration/test_docling_compat.py``) that says which Docling internal changed
and which name here to update, so an upgrade fails at one place, loudly.

Nothing here changes Docling for anyone else in the process: no module attribute, no plugin
factory, no environment variable. Importing this module imports Docling's PDF pipeline; do
it inside ``slim_import.without_torch`` on the rules path.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

from docling.backend.docling_parse_backend import (
    ThreadedDoclingParseDocumentBackend,
    ThreadedDoclingParsePageBackend,
)
from docling.backend.pdf_backend import PdfDocumentBackend
from docling.datamodel.accelerator_options import AcceleratorOptions
from docling.datamodel.backend_options import ThreadedDoclingParseBackendOptions
from docling.datamodel.base_models import Page
from docling.datamodel.document import InputDocument
from docling.datamodel.pipeline_options import LayoutPostprocessorOptions, TableStructureOptions
from docling.exceptions import DocumentLoadError
from docling.models.base_layout_model import BaseLayoutModel
from docling.models.factories import get_layout_factory
from docling.models.postprocessing import reading_order_rb
from docling.models.stages.code_formula.code_formula_vlm_model import CodeFormulaVlmModel
from docling.models.stages.form_field.form_field_model import PdfFormFieldModel
from docling.models.stages.heading_hierarchy.heading_hierarchy_model import (
    HeadingHierarchyModel,
)
from docling.models.stages.layout.layout_postprocessing_model import LayoutPostprocessingModel
from docling.models.stages.page_assemble.page_assemble_model import (
    PageAssembleModel,
    PageAssembleOptions,
)
from docling.models.stages.page_preprocessing.page_preprocessing_model import (
    PagePreprocessingModel,
    PagePreprocessingOptions,
    resolve_skip_cell_extraction,
)
from docling.models.stages.reading_order.readingorder_model import (
    ReadingOrderModel,
    ReadingOrderOptions,
)
from docling.models.stages.table_structure.table_structure_model import TableStructureModel
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline
from docling_core.types.doc import BoundingBox
from docling_parse.pdf_parser import (
    ContentConfig,
    DecodeConfig,
    DoclingThreadedPdfParser,
    ThreadedPdfParserConfig,
)

# ----------------------------------------------------------------- reading-order separators
# Docling's rule for the page rules it takes as reading-order separators
# (``reading_order_rb._candidate_separator``): how thin a rule is, and how many candidates a
# page may have before Docling drops them all.
AXIS_ALIGNMENT_TOLERANCE: float = reading_order_rb._AXIS_ALIGNMENT_TOLERANCE
MAX_SEPARATOR_CANDIDATES: int = reading_order_rb._MAX_SEPARATOR_CANDIDATES


# ---------------------------------------------------------------- pages and input documents
def page_backend(page: Page) -> Any:
    """The backend a page is read through while Docling's stages run (``Page._backend``):
    the layout stage reads its characters, preprocessing its text lines and rules."""
    return page._backend


def keep_shape_geometry(
    page: Page, lines: list[BoundingBox] | None, boxes: list[BoundingBox] | None
) -> None:
    """Hand a page's rules to Docling's reading order, which reads them after the backend
    is released (``Page._shape_lines`` and ``Page._shape_bounding_boxes``, as Docling's
    ``PagePreprocessingModel._capture_shape_geometry`` sets them)."""
    page._shape_lines = lines
    page._shape_bounding_boxes = boxes


def release_input(document: InputDocument) -> None:
    """Close the backend of a document Docling found invalid (``InputDocument._backend``),
    as ``DocumentConverter`` does before it reports the failure."""
    backend = getattr(document, "_backend", None)
    if backend is not None:
        backend.unload()


# ---------------------------------------------------------------- docling-parse backends
def page_decoder(backend: ThreadedDoclingParsePageBackend) -> Any:
    """docling-parse's decoder of one page (``_result._require_page_decoder()``): its
    characters, rules and shapes as plain numbers, without a pydantic object each."""
    return backend._result._require_page_decoder()


class ParseDocumentBackend(ThreadedDoclingParseDocumentBackend):
    """Docling's threaded docling-parse backend, decoding with a ``ContentConfig`` of the
    caller's and never rendering. The stock constructor hard-codes what is decoded (words
    materialised, shapes only with a render), so this one is the stock constructor of the
    pinned Docling with that one choice open; the smoke test checks that it still sets every
    attribute the stock one sets."""

    def __init__(
        self,
        in_doc: Any,
        path_or_stream: BytesIO | Path,
        options: Any,
        content: ContentConfig,
    ) -> None:
        options = options or ThreadedDoclingParseBackendOptions()
        PdfDocumentBackend.__init__(self, in_doc, path_or_stream, options)
        self._closed = False
        self._iterating = False
        self._render_pages = False
        threaded = (
            options
            if isinstance(options, ThreadedDoclingParseBackendOptions)
            else ThreadedDoclingParseBackendOptions()
        )
        parser_config = ThreadedPdfParserConfig(
            loglevel="fatal",
            threads=threaded.parser_threads or AcceleratorOptions().num_threads,
            page_content_config=content,
        )
        if threaded.max_concurrent_results is not None:
            parser_config.max_concurrent_results = threaded.max_concurrent_results
        self.parser = DoclingThreadedPdfParser(
            parser_config=parser_config,
            decode_config=DecodeConfig(
                enforce_same_font=options.enforce_same_font,
                release_native_memory_every_n_pages=threaded.release_native_memory_every_n_pages,
            ),
        )
        password = options.password.get_secret_value() if options.password else None
        try:
            if isinstance(self.path_or_stream, BytesIO):
                self.path_or_stream.seek(0)
            start, end = in_doc.limits.page_range
            self.doc_key = self.parser.load(
                self.path_or_stream,
                password=password,
                page_range=(min(start, sys.maxsize), min(end, sys.maxsize)),
            )
        except (RuntimeError, ValueError) as error:
            raise DocumentLoadError(
                f"docling-parse could not load document {self.document_hash}: {error}"
            ) from error

    def page_results(self) -> Iterator[Any]:
        """docling-parse's page results in order, flagged as Docling's ``iter_pages`` flags
        them (``unload`` drains an iteration left unfinished)."""
        self._iterating = True
        yield from self.parser.iterate_results()
        self._iterating = False


# ---------------------------------------------------------------- the PDF pipeline
class _BoxScan:
    """The one query of an R-tree that ``_has_sequence_interruption`` makes, answered by a
    scan: the elements whose box meets a rectangle, edges included, as ``rtree`` answers it
    (coordinates interleaved: left, bottom, right, top)."""

    def __init__(self, elements: list[Any]) -> None:
        self.boxes = [(e.l, e.b, e.r, e.t) for e in elements]

    def intersection(self, query: tuple[float, float, float, float]) -> list[int]:
        left, bottom, right, top = query
        return [
            i
            for i, (l, b, r, t) in enumerate(self.boxes)
            if l <= right and r >= left and b <= top and t >= bottom
        ]


class ScanReadingOrderPredictor(reading_order_rb.ReadingOrderPredictor):
    """Docling's rule-based reading order, unchanged except for where its test of an element
    between two others looks for candidates.

    That test (``_has_sequence_interruption``) queries an R-tree once per pair of elements
    one above the other, through ctypes. A page holds tens of elements, so each query costs
    far more in ctypes than a scan of the page's boxes: the queries were 7.5 % of a
    conversion's CPU, on the conversion thread that bounds an ingest's pages per second
    (docs/adr/0032). The scan returns the same elements, and Docling's own code then judges
    them; ``_init_ud_maps`` still builds and queries its R-tree for the other lookups.

    Not for use by two threads at once: the scan is kept for the R-tree it stands in for
    (one per call of ``_init_ud_maps``), as one pipeline's reading-order stage uses it."""

    def __init__(self) -> None:
        super().__init__()
        self._scanned: tuple[object, _BoxScan] | None = None

    def _has_sequence_interruption(
        self,
        spatial_idx: Any,
        page_elems: list[Any],
        i: int,
        j: int,
        pelem_i: Any,
        pelem_j: Any,
    ) -> bool:
        if self._scanned is None or self._scanned[0] is not spatial_idx:
            # a new R-tree is a new page (or its dilated boxes): scan its elements
            self._scanned = (spatial_idx, _BoxScan(page_elems))
        scan = self._scanned[1]
        return super()._has_sequence_interruption(scan, page_elems, i, j, pelem_i, pelem_j)  # type: ignore[arg-type]


class OwnModelsPdfPipeline(StandardPdfPipeline):
    """Docling's standard PDF pipeline with its models built here, not by Docling's plugin
    factories.

    Those factories are process-wide singletons: making the rules layout known to them
    changes Docling for the whole process, and building the table-structure factory imports
    every table plugin, of which ``table_structure_model_v2`` imports torchvision at module
    level (that fails with the CPU torch, even with ``do_table_structure=False``). So
    ``_init_models`` is that of the pinned Docling, model by model, except that the
    preprocessing and layout models come from the two methods below and the table model is
    Docling's v1 ``TableStructureModel``, whose heavy imports are lazy. The smoke test holds
    the set of models to Docling's."""

    def make_preprocessing(self, options: PagePreprocessingOptions) -> PagePreprocessingModel:
        return PagePreprocessingModel(options=options)

    def make_layout(self, artifacts_path: Path | None) -> BaseLayoutModel:
        """Docling's layout model for the options (its trained model), by its own factory."""
        opts = self.pipeline_options
        factory = get_layout_factory(allow_external_plugins=opts.allow_external_plugins)
        model: BaseLayoutModel = factory.create_instance(
            options=opts.layout_options,
            artifacts_path=artifacts_path,
            accelerator_options=opts.accelerator_options,
            enable_remote_services=opts.enable_remote_services,
        )
        return model

    def _init_models(self) -> None:
        opts = self.pipeline_options
        art_path = self.artifacts_path
        self.keep_images = (
            opts.generate_page_images or opts.generate_picture_images or opts.generate_table_images
        )
        self.preprocessing_model = self.make_preprocessing(
            PagePreprocessingOptions(
                images_scale=opts.images_scale,
                skip_cell_extraction=resolve_skip_cell_extraction(opts),
                capture_reading_order_separators=opts.use_reading_order_separators,
            )
        )
        self.ocr_model = self._make_ocr_model(art_path)
        self.layout_model = self.make_layout(art_path)
        layout = opts.layout_options
        self.layout_postprocessing_model = LayoutPostprocessingModel(
            options=LayoutPostprocessorOptions(
                skip_cell_assignment=layout.skip_cell_assignment,
                keep_empty_clusters=layout.keep_empty_clusters,
                create_orphan_clusters=layout.create_orphan_clusters,
                run_postprocessor=self.layout_model.requires_layout_postprocessing,
            )
        )
        self.form_field_model = PdfFormFieldModel(enabled=opts.extract_form_fields)
        table = opts.table_structure_options
        if not isinstance(table, TableStructureOptions):
            raise TypeError(f"only Docling's v1 table model is built here, not {table.kind}")
        self.table_model = TableStructureModel(
            enabled=opts.do_table_structure,
            artifacts_path=art_path,
            options=table,
            accelerator_options=opts.accelerator_options,
        )
        self.assemble_model = PageAssembleModel(options=PageAssembleOptions())
        self.reading_order_model = ReadingOrderModel(
            options=ReadingOrderOptions(use_page_separators=opts.use_reading_order_separators)
        )
        self.reading_order_model.ro_model = ScanReadingOrderPredictor()
        self.heading_hierarchy_model = HeadingHierarchyModel(options=opts.heading_hierarchy_options)
        code_formula = opts.code_formula_options.model_copy(
            update={
                "extract_code": opts.do_code_enrichment,
                "extract_formulas": opts.do_formula_enrichment,
            }
        )
        self.enrichment_pipe = [
            CodeFormulaVlmModel(
                enabled=opts.do_code_enrichment or opts.do_formula_enrichment,
                artifacts_path=self.artifacts_path,
                options=code_formula,
                accelerator_options=opts.accelerator_options,
                enable_remote_services=opts.enable_remote_services,
            ),
            *self.enrichment_pipe,
        ]
        self.keep_backend = any(
            (
                opts.do_formula_enrichment,
                opts.do_code_enrichment,
                opts.do_picture_classification,
                opts.do_picture_description,
                opts.do_chart_extraction,
            )
        )
