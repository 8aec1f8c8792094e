"""The Converter adapter: Docling's standard PDF pipeline with the weight-free layout stage.

Docling (and with it torch) is imported on the first conversion only, never when this module is
imported, so query and validate stay fast. Before Docling sees a file, pypdfium2 checks that it
is a readable, unencrypted PDF, so a bad file fails with a message that names the fix.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from citeloom.domain.errors import ConverterUnavailable, DocumentError
from citeloom.domain.models import Block, BlockKind, ConvertedDocument
from citeloom.domain.text import fold_for_match, normalise_text

DOCLING_VERSION = "2.143.0"
RULES_VERSION = "1"
CONVERTER_ID = f"docling-{DOCLING_VERSION}+rules-{RULES_VERSION}"
PDF_SUFFIXES = {".pdf"}

_log = logging.getLogger(__name__)


def precheck_pdf(path: Path) -> tuple[int, dict[str, str]]:
    """Page count and metadata, or a ``DocumentError`` saying what is wrong and what to do."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError as error:
        raise DocumentError(
            f"{path}: cannot be read ({error.strerror}). Check the file's permissions."
        ) from error
    if size == 0:
        raise DocumentError(f"{path}: the file is empty (0 bytes). Re-download or re-export it.")
    if b"%PDF-" not in head:
        raise DocumentError(
            f"{path}: not a PDF (no %PDF header). Rename it with its real extension or remove it."
        )
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as error:
        if "password" in str(error).lower():
            raise DocumentError(
                f"{path}: the PDF is encrypted. Save an unprotected copy (e.g. qpdf --decrypt "
                "in.pdf out.pdf) and ingest that."
            ) from error
        raise DocumentError(
            f"{path}: the PDF is damaged and cannot be parsed ({error}). Re-download or "
            "re-export it."
        ) from error
    try:
        pages = len(pdf)
        meta = {k.lower(): str(v) for k, v in pdf.get_metadata_dict(skip_empty=True).items()}
    finally:
        pdf.close()
    if pages == 0:
        raise DocumentError(f"{path}: the PDF has no pages. Re-download or re-export it.")
    return pages, meta


_KINDS = {
    "title": BlockKind.TITLE,
    "section_header": BlockKind.HEADING,
    "text": BlockKind.TEXT,
    "paragraph": BlockKind.TEXT,
    "list_item": BlockKind.LIST_ITEM,
    "caption": BlockKind.CAPTION,
    "footnote": BlockKind.FOOTNOTE,
    "formula": BlockKind.FORMULA,
    "code": BlockKind.CODE,
    "table": BlockKind.TABLE,
    "reference": BlockKind.TEXT,
}


def blocks_from_docling(document: Any) -> list[Block]:
    """Reading-ordered blocks from a DoclingDocument's body (furniture is never iterated)."""
    furniture = _repeated_margin_text(document)
    blocks: list[Block] = []
    for item, _depth in document.iterate_items():
        label = str(getattr(item, "label", ""))
        kind = _KINDS.get(label)
        if kind is None:
            continue
        page = item.prov[0].page_no if getattr(item, "prov", None) else None
        if kind is BlockKind.TABLE:
            text = item.export_to_markdown(doc=document)
        else:
            text = getattr(item, "text", "")
        text = normalise_text(text)
        if not text or (kind is not BlockKind.HEADING and _margin_key(item, document) in furniture):
            continue
        level = int(getattr(item, "level", 1) or 1) if kind is BlockKind.HEADING else 0
        blocks.append(Block(text=text, kind=kind, page=page, level=level))
    return blocks


def margin_text(document: Any, pages: int = 2) -> str:
    """Page headers, footers and margin stamps of the first pages (Docling's furniture)."""
    from docling_core.types.doc import ContentLayer

    parts = []
    for item, _depth in document.iterate_items(included_content_layers={ContentLayer.FURNITURE}):
        prov = getattr(item, "prov", None)
        if prov and prov[0].page_no <= pages and getattr(item, "text", ""):
            parts.append(normalise_text(item.text))
    return "\n".join(dict.fromkeys(parts))


def mark_title(blocks: list[Block], title: str | None) -> list[Block]:
    """Turn the page-1 heading(s) holding the layout stage's title into one TITLE block.

    Docling may split a title set over lines with wide leading into consecutive headings, so
    consecutive headings are joined until they spell the title."""
    if not title:
        return blocks
    key = fold_for_match(title)
    for start, block in enumerate(blocks):
        if block.page not in (1, None):
            break
        if block.kind not in (BlockKind.HEADING, BlockKind.TITLE):
            continue
        joined = ""
        for end in range(start, len(blocks)):
            if blocks[end].kind not in (BlockKind.HEADING, BlockKind.TITLE):
                break
            joined = f"{joined} {fold_for_match(blocks[end].text)}".strip()
            if joined == key:
                text = " ".join(b.text for b in blocks[start : end + 1])
                return [*blocks[:start], Block(text, BlockKind.TITLE, 1), *blocks[end + 1 :]]
            if not key.startswith(joined):
                break
    return blocks


def _margin_key(item: Any, document: Any) -> tuple[str, int] | None:
    """Digits-agnostic text and rough height of a short item near the top or bottom edge."""
    prov = getattr(item, "prov", None)
    text = getattr(item, "text", "")
    if not prov or not text or len(text) > 100:
        return None
    page = document.pages.get(prov[0].page_no)
    if page is None or page.size is None:
        return None
    box = prov[0].bbox.to_top_left_origin(page.size.height)
    rel = box.t / page.size.height
    if 0.12 < rel < 0.88:
        return None
    return re.sub(r"\d+", "#", fold_for_match(text)), round(rel * 20)


def _repeated_margin_text(document: Any) -> set[tuple[str, int] | None]:
    """Running heads the layout rules missed: the same margin text on many pages."""
    pages_of: dict[tuple[str, int], set[int]] = defaultdict(set)
    for item, _ in document.iterate_items():
        key = _margin_key(item, document)
        if key is not None:
            pages_of[key].add(item.prov[0].page_no)
    total = max(len(document.pages), 1)
    threshold = max(3, int(0.4 * total))
    return {k for k, pages in pages_of.items() if len(pages) >= threshold}


class DoclingConverter:
    def __init__(
        self,
        *,
        ocr: str = "auto",
        ocr_languages: tuple[str, ...] = ("eng", "deu"),
        timeout_s: float = 600.0,
        max_pages: int = 2000,
    ) -> None:
        self.ocr = ocr
        self.ocr_languages = tuple(ocr_languages)
        self.timeout_s = timeout_s
        self.max_pages = max_pages
        self._converter: Any = None

    @property
    def converter_id(self) -> str:
        return f"{CONVERTER_ID}+ocr-{self.ocr}-{'.'.join(self.ocr_languages)}"

    def supports(self, path: Path) -> bool:
        return path.suffix.lower() in PDF_SUFFIXES

    def _docling(self) -> Any:
        if self._converter is None:
            try:
                self._converter = build_pdf_converter(
                    ocr=self.ocr, ocr_languages=self.ocr_languages, timeout_s=self.timeout_s
                )
            except ImportError as error:
                raise ConverterUnavailable(
                    f"the PDF converter cannot start ({error}). Reinstall citeloom with its "
                    "pinned dependencies: pip install -c constraints.txt -e ."
                ) from error
        return self._converter

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        if not self.supports(path):
            raise DocumentError(
                f"{path}: unsupported file type '{path.suffix}'. citeloom ingests: "
                f"{', '.join(sorted(PDF_SUFFIXES))}."
            )
        pages, meta = precheck_pdf(path)
        warnings: list[str] = []
        last_page = pages
        if pages > self.max_pages:
            last_page = self.max_pages
            warnings.append(
                f"partial: only the first {self.max_pages} of {pages} pages were converted "
                "([conversion] max_pages)"
            )
        from citeloom.adapters.conversion.heuristic_layout import pop_notes

        docling = self._docling()
        try:
            result = docling.convert(path, raises_on_error=False, page_range=(1, last_page))
        except ImportError as error:
            raise ConverterUnavailable(
                f"the PDF converter is missing a module ({error}). Reinstall citeloom with its "
                "pinned dependencies: pip install -c constraints.txt -e ."
            ) from error
        except Exception as error:  # Docling raises many types for broken input
            raise DocumentError(
                f"{path}: conversion failed ({type(error).__name__}: {error}). The file may be "
                "damaged; re-download or re-export it."
            ) from error
        notes = pop_notes(result.input.document_hash)
        status = str(getattr(result.status, "value", result.status))
        errors = [e.error_message for e in (result.errors or [])]
        if status == "failure" or result.document is None:
            raise DocumentError(
                f"{path}: conversion failed ({'; '.join(errors) or 'no output'}). The file may "
                "be damaged; re-download or re-export it."
            )
        if status == "partial_success":
            timed_out = any("time" in e.lower() for e in errors)
            warnings.append(
                f"partial: conversion stopped after {self.timeout_s:g} s ([conversion] timeout_s)"
                if timed_out
                else f"partial: {'; '.join(errors) or 'some pages failed'}"
            )
        warnings.extend(notes.warnings)
        blocks = mark_title(blocks_from_docling(result.document), notes.title)
        title = next((b.text for b in blocks if b.kind is BlockKind.TITLE), None)
        return ConvertedDocument(
            source_path=str(path),
            sha256=sha256,
            title=title,
            page_count=pages,
            blocks=tuple(blocks),
            converter=self.converter_id,
            pdf_metadata={k: v for k, v in meta.items() if k in ("title", "subject", "keywords")},
            ocr_pages=tuple(sorted(notes.ocr_pages)),
            warnings=tuple(warnings),
            margin_text=margin_text(result.document),
        )


def build_pdf_converter(*, ocr: str, ocr_languages: tuple[str, ...], timeout_s: float) -> Any:
    """A DocumentConverter for PDFs with the rules layout, OCR for pages without text,
    heading levels from bookmarks, numbering and style, and no table-structure model."""
    from docling.datamodel.backend_options import ThreadedDoclingParseBackendOptions
    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.pipeline_options import (
        HeadingHierarchyOptions,
        OcrMode,
        PdfPipelineOptions,
        TesseractCliOcrOptions,
    )
    from docling.document_converter import DocumentConverter, PdfFormatOption

    from citeloom.adapters.conversion.heuristic_layout import (
        RulesLayoutOptions,
        register,
        register_table_plugins_v1_only,
    )

    register()
    register_table_plugins_v1_only()
    layout = RulesLayoutOptions(
        ocr_mode=ocr,  # type: ignore[arg-type]
        ocr_options=TesseractCliOcrOptions(lang=list(ocr_languages), mode=OcrMode.FULL_PAGE)
        if ocr != "never"
        else None,
    )
    options = PdfPipelineOptions(
        do_table_structure=False,
        do_ocr=False,  # OCR runs inside the layout stage, where it can still help
        layout_options=layout,
        generate_parsed_pages=True,  # heading levels from font style need the parsed cells
        heading_hierarchy_options=HeadingHierarchyOptions(enabled=True),
        document_timeout=timeout_s,
    )
    # The layout rules read font size and weight from characters; docling-parse computes
    # them anyway and keeps them only when asked (a private switch of the pinned version).
    backend_options = ThreadedDoclingParseBackendOptions()
    backend_options._materialize_char_cells = True
    return DocumentConverter(
        allowed_formats=[InputFormat.PDF],
        format_options={
            InputFormat.PDF: PdfFormatOption(
                pipeline_options=options, backend_options=backend_options
            )
        },
    )
