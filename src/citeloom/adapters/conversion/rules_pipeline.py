"""Docling's standard PDF pipeline, minus the page images a weight-free layout never reads.

The stock preprocessing stage renders every page at scale 1 for the layout model. The rules
layout labels text lines from their geometry and fonts, so that image is pure cost; the OCR of
a page without a text layer asks the backend for its own image at OCR resolution. Everything
else (layout postprocessing, cell assignment, reading order, heading hierarchy, assembly) is
Docling's own pipeline, unchanged.
"""

from __future__ import annotations

from docling.datamodel.base_models import Page
from docling.models.stages.page_preprocessing.page_preprocessing_model import (
    PagePreprocessingModel,
)
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline


class _NoImagePreprocessing(PagePreprocessingModel):
    def _populate_page_images(self, page: Page) -> Page:
        return page


class RulesPdfPipeline(StandardPdfPipeline):
    def _init_models(self) -> None:
        super()._init_models()
        self.preprocessing_model = _NoImagePreprocessing(options=self.preprocessing_model.options)
