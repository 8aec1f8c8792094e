"""The Converter adapter: Docling's standard PDF pipeline with the weight-free layout stage.

Docling (and with it torch) is imported on the first conversion only, never when this module is
imported, so query and validate stay fast. Before Docling sees a file, pypdfium2 checks that it
is a readable, unencrypted PDF, so a bad file fails with a message that names the fix.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from citeloom.adapters.conversion.docling_reading import (
    MarginKey,
    PdfReading,
    blocks_from_docling,
    drop_running_heads,
    keyed_blocks,
    mark_title,
    mend_lost_ligatures,
    page_marks,
    release_freed_memory,
)
from citeloom.domain.errors import ConverterUnavailable, DocumentError
from citeloom.domain.headings import numbering_levels, repeated_labels
from citeloom.domain.models import (
    Block,
    BlockKind,
    ConversionWarning,
    ConvertedDocument,
    WarningKind,
)
from citeloom.ports import PagesSeen

if TYPE_CHECKING:
    from citeloom.adapters.conversion.layout_notes import DoclingRun

DOCLING_VERSION = "2.143.0"
# Bump when the layout rules or the block mapping change: it is part of the conversion cache
# key, so cached conversions made by older rules are not reused.
# 11: a character docling-parse reads as U+FFFD is read by pdfium from its glyph name
RULES_VERSION = "11"  # bump when the output changes: it keys the conversion cache
# Bump when what is read from a DoclingDocument changes (blocks, margins, page marks), whichever
# layout made it. 2: the margin text holds the words the layout put inside pictures; 3: an
# element that a page break cut is a block on each page (``docling_reading.page_pieces``); 4: a
# ligature left as U+FFFD is mended from the document's words and a word list, "¼" between a
# word and a number is read as "=" (``domain.ligatures``, ``domain.text``).
MAPPING_VERSION = "4"
CONVERTER_ID = f"docling-{DOCLING_VERSION}+rules-{RULES_VERSION}+map-{MAPPING_VERSION}"
TRAINED_ID = f"docling-{DOCLING_VERSION}+trained+map-{MAPPING_VERSION}"
PDF_SUFFIXES = frozenset({".pdf"})
# Pages of a PDF converted at once: a longer PDF is converted in batches of this many pages, so
# that a book needs the memory of a paper (ADR 0024).
PAGE_BATCH = 50
# Formats Docling reads without a layout model (its simple pipeline): headings with levels,
# no pages, so chunks of these cite a section rather than a page.
SIMPLE_SUFFIXES: Mapping[str, str] = MappingProxyType(
    {".docx": "docx", ".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}
)
TRAINED_LAYOUT_REPO = "docling-project/docling-layout-heron"
# the Hugging Face cache when no HF_HOME or HF_HUB_CACHE says otherwise (the settings read those)
HF_HUB = Path("~/.cache/huggingface/hub")

_log = logging.getLogger(__name__)


def read_head(path: Path) -> bytes:
    """The first KiB of a file, or a ``DocumentError`` for an unreadable or empty one."""
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
    return head


def precheck_pdf(path: Path) -> tuple[int, dict[str, str], bool, tuple[str, ...]]:
    """Page count, metadata, whether it has an outline (bookmarks) and its page labels (one
    per page, empty where it has none), or a ``DocumentError`` saying what is wrong and what
    to do."""
    head = read_head(path)
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
        reason = str(error).rstrip(".")
        raise DocumentError(
            f"{path}: the PDF is damaged and cannot be parsed ({reason}). Re-download or "
            "re-export it."
        ) from error
    try:
        pages = len(pdf)
        meta = {k.lower(): str(v) for k, v in pdf.get_metadata_dict(skip_empty=True).items()}
        outline = next(iter(pdf.get_toc(max_depth=1)), None) is not None
        labels = tuple(pdf.get_page_label(i) for i in range(pages))
    finally:
        pdf.close()
    if pages == 0:
        raise DocumentError(f"{path}: the PDF has no pages. Re-download or re-export it.")
    return pages, meta, outline, labels


def levels_from_numbering(blocks: list[Block]) -> list[Block]:
    """Where a heading's numbering fixes its level, use it (see ``domain.headings``)."""
    heads = [i for i, b in enumerate(blocks) if b.kind is BlockKind.HEADING]
    levels = numbering_levels([blocks[i].text for i in heads])
    out = list(blocks)
    for i, level in zip(heads, levels, strict=True):
        if level is not None and level != out[i].level:
            out[i] = replace(out[i], level=level)
    return out


def demote_repeated_labels(blocks: list[Block]) -> list[Block]:
    """Short headings that repeat (table column heads, template labels) become text."""
    heads = [i for i, b in enumerate(blocks) if b.kind is BlockKind.HEADING]
    repeated = repeated_labels([blocks[i].text for i in heads])
    out = list(blocks)
    for n in repeated:
        out[heads[n]] = replace(out[heads[n]], kind=BlockKind.TEXT, level=0)
    return out


def trained_layout(artifacts_path: Path | None, hub: Path = HF_HUB) -> Path | None:
    """Where Docling's trained layout weights are, if anywhere on this machine.

    Looked for in ``artifacts_path`` (Docling's layout: one folder per repo, ``/`` as ``--``)
    and in the Hugging Face cache ``hub`` (the settings say where: ``Environment.hf_hub``).
    Never downloaded: these machines cannot reach the hub."""
    folder = TRAINED_LAYOUT_REPO.replace("/", "--")
    if artifacts_path is not None and (artifacts_path / folder).is_dir():
        return artifacts_path / folder
    snapshots = hub.expanduser() / f"models--{folder}" / "snapshots"
    found = sorted(p for p in snapshots.glob("*") if any(p.glob("*.safetensors")))
    return found[-1] if found else None


class TrainedArtifacts:
    """The ``artifacts_path`` to give Docling for the trained weights found at ``trained``.

    Under an ``artifacts_path`` the weights sit in ``<artifacts>/<repo folder>`` already. In
    the Hugging Face cache they sit in ``models--<repo>/snapshots/<revision>``, which Docling
    would only find through the hub client (which downloads unless told not to, by an
    environment variable read for the whole process); so a temporary folder of this object
    links the repo folder to the snapshot, and goes with it: at ``cleanup``, when the object
    is garbage-collected, or at exit. Given an ``artifacts_path``, Docling never calls the
    hub."""

    def __init__(self, trained: Path) -> None:
        folder = TRAINED_LAYOUT_REPO.replace("/", "--")
        self._links: tempfile.TemporaryDirectory[str] | None = None
        if trained.name == folder:
            self.path = trained.parent
            return
        self._links = tempfile.TemporaryDirectory(prefix="citeloom-docling-artifacts-")
        self.path = Path(self._links.name)
        (self.path / folder).symlink_to(trained, target_is_directory=True)

    def cleanup(self) -> None:
        if self._links is not None:
            self._links.cleanup()


def layout_choice(
    layout: str, artifacts_path: Path | None, hub: Path = HF_HUB
) -> tuple[str, Path | None]:
    """("trained", where) when Docling's model is wanted and present, else ("rules", None)."""
    if layout in ("auto", "trained"):
        where = trained_layout(artifacts_path, hub)
        if where is not None:
            return "trained", where
        if layout == "trained":
            raise ConverterUnavailable(
                f'[conversion] layout = "trained" but the weights of {TRAINED_LAYOUT_REPO} are '
                f"neither under artifacts_path ({artifacts_path}) nor in the Hugging Face cache. "
                'Copy them there, or use layout = "auto".'
            )
    return "rules", None


def describe_layout(layout: str, artifacts_path: Path | None, hub: Path = HF_HUB) -> str:
    kind, where = layout_choice(layout, artifacts_path, hub)
    if kind == "trained":
        return f"Docling's trained layout model ({where})"
    return "weight-free layout rules (Docling's trained model not found)"


_UNAVAILABLE = (
    "Reinstall citeloom with its pinned dependencies: pip install -c constraints.txt -e ."
)


class DoclingConverter:
    """PDFs through the standard pipeline (rules or trained layout, OCR), DOCX, HTML and
    Markdown through Docling's simple pipeline."""

    def __init__(
        self,
        *,
        ocr: str = "auto",
        ocr_languages: tuple[str, ...] = ("eng", "deu"),
        timeout_s: float = 600.0,
        max_pages: int = 2000,
        layout: str = "auto",
        artifacts_path: Path | None = None,
        hub: Path = HF_HUB,
        page_batch: int | None = None,
    ) -> None:
        """``hub``: the Hugging Face cache searched for the trained layout weights;
        ``page_batch``: the pages of a PDF converted at once (None: ``PAGE_BATCH``)."""
        self.page_batch = max(1, PAGE_BATCH if page_batch is None else page_batch)
        self.ocr = ocr
        self.ocr_languages = tuple(ocr_languages)
        self.timeout_s = timeout_s
        self.max_pages = max_pages
        self.layout, self.layout_path = layout_choice(layout, artifacts_path, hub)
        self._converters: dict[str, Any] = {}
        self._artifacts: TrainedArtifacts | None = None  # while a trained converter is kept
        self._seen: PagesSeen | None = None

    def report_pages(self, seen: PagesSeen | None) -> None:
        """``seen`` is told after each batch of a PDF's pages (``PAGE_BATCH``), and once
        before the first: a long book shows its progress, a paper of a batch its start."""
        self._seen = seen

    def close(self) -> None:
        """Drop the Docling converters and the link folder of trained weights, if any (also
        done when this object is garbage-collected)."""
        self._converters.clear()
        if self._artifacts is not None:
            self._artifacts.cleanup()
            self._artifacts = None

    @property
    def converter_id(self) -> str:
        layout = CONVERTER_ID if self.layout == "rules" else TRAINED_ID
        return f"{layout}+ocr-{self.ocr}-{'.'.join(self.ocr_languages)}"

    def supports(self, path: Path) -> bool:
        suffix = path.suffix.lower()
        return suffix in PDF_SUFFIXES or suffix in SIMPLE_SUFFIXES

    def _docling(self, path: Path) -> Any:
        """The Docling converter for this file, built on first use: PDFs with the rules go
        straight to their pipeline (no torch); the rest through Docling's DocumentConverter."""
        rules_pdf = self.layout == "rules" and path.suffix.lower() in PDF_SUFFIXES
        kind = "rules-pdf" if rules_pdf else "docling"
        if kind not in self._converters:
            ocr, languages, timeout_s = self.ocr, self.ocr_languages, self.timeout_s
            try:
                if rules_pdf:
                    built = build_rules_pdf_converter(
                        ocr=ocr, ocr_languages=languages, timeout_s=timeout_s
                    )
                else:
                    if self.layout_path is not None and self._artifacts is None:
                        self._artifacts = TrainedArtifacts(self.layout_path)
                    built = build_converter(
                        ocr=ocr,
                        ocr_languages=languages,
                        timeout_s=timeout_s,
                        artifacts_path=self._artifacts.path if self._artifacts else None,
                    )
                self._converters[kind] = built
            except ImportError as error:
                raise ConverterUnavailable(
                    f"the converter cannot start ({error}). {_UNAVAILABLE}"
                ) from error
        return self._converters[kind]

    def _run(self, path: Path, **kwargs: Any) -> DoclingRun:
        """Docling's conversion of ``path`` with the layout stage's notes (the rules
        converter returns both; Docling's own converter has no notes to give)."""
        from citeloom.adapters.conversion.layout_notes import DoclingRun

        docling = self._docling(path)
        try:
            done = docling.convert(path, raises_on_error=False, **kwargs)
            return done if isinstance(done, DoclingRun) else DoclingRun(done)
        except ImportError as error:
            raise ConverterUnavailable(
                f"the converter is missing a module ({error}). {_UNAVAILABLE}"
            ) from error
        except Exception as error:  # Docling raises many types for broken input
            raise DocumentError(
                f"{path}: conversion failed ({type(error).__name__}: {error}). The file may be "
                "damaged; re-download or re-export it."
            ) from error

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        suffix = path.suffix.lower()
        if suffix in SIMPLE_SUFFIXES:
            return self._convert_simple(path, sha256)
        if suffix not in PDF_SUFFIXES:
            known = sorted(PDF_SUFFIXES | set(SIMPLE_SUFFIXES))
            raise DocumentError(
                f"{path}: unsupported file type '{path.suffix}'. citeloom ingests: "
                f"{', '.join(known)} and .txt."
            )
        return self._convert_pdf(path, sha256)

    def _convert_pdf(self, path: Path, sha256: str) -> ConvertedDocument:
        pages, meta, outline, pdf_labels = precheck_pdf(path)
        last_page = min(pages, self.max_pages)
        read = PdfReading()
        seen = self._seen
        if seen is not None:
            seen(path, 0, last_page)
        for first in range(1, last_page + 1, self.page_batch):
            # One batch of pages at a time: Docling's document and parsed pages go before the
            # next batch, so memory follows the batch, not the PDF (ADR 0024). What depends
            # on the whole PDF (running heads, title, heading levels, page labels) is judged
            # below over every batch's blocks, as for a PDF converted at once.
            last = min(first + self.page_batch - 1, last_page)
            run = self._run(path, page_range=(first, last))
            try:
                keyed, stopped = self._read(path, run.result)
            except DocumentError:
                if not read.blocks:
                    raise
                reason = f"pages {first}-{last} could not be converted"
                keyed, stopped = [], ConversionWarning(WarningKind.PARTIAL, reason)
            read.add(run, keyed, first)
            del run
            if seen is not None:
                seen(path, last, last_page)
            if last_page > self.page_batch:
                release_freed_memory()
            if stopped is not None:
                read.stopped = stopped
                if stopped.kind is WarningKind.TIMEOUT:
                    break
        stopped = read.stopped
        blocks = drop_running_heads(read.blocks, read.pages_of, read.converted_pages)
        blocks = mark_title(blocks, read.title)
        if not outline:  # an outline's levels are the author's own: Docling used them already
            blocks = levels_from_numbering(blocks)
        blocks = demote_repeated_labels(blocks)
        blocks = mend_lost_ligatures(blocks)
        if stopped is not None and stopped.kind is WarningKind.TIMEOUT:
            done = sorted({b.page for b in blocks if b.page is not None})
            message = f"{stopped.message}; pages with text: {_ranges(done)} of {pages}"
            stopped = replace(stopped, message=message)
        warnings = [stopped] if stopped is not None else []
        if pages > self.max_pages:
            warnings.append(
                ConversionWarning(
                    WarningKind.PARTIAL,
                    f"only the first {self.max_pages} of {pages} pages were converted "
                    "([conversion] max_pages)",
                )
            )
        warnings.extend(read.warnings)
        return ConvertedDocument(
            source_path=str(path),
            sha256=sha256,
            title=next((b.text for b in blocks if b.kind is BlockKind.TITLE), None),
            page_count=pages,
            blocks=tuple(blocks),
            converter=self.converter_id,
            pdf_metadata={k: v for k, v in meta.items() if k in ("title", "subject", "keywords")},
            ocr_pages=tuple(sorted(read.ocr_pages)),
            warnings=tuple(warnings),
            margin_text=read.margin_text,
            page_marks=page_marks(pages, pdf_labels, tuple(read.margin_lines), blocks),
        )

    def _convert_simple(self, path: Path, sha256: str) -> ConvertedDocument:
        head = read_head(path)
        if SIMPLE_SUFFIXES[path.suffix.lower()] == "docx" and not head.startswith(b"PK"):
            raise DocumentError(
                f"{path}: not a DOCX file (no zip header). Save it again as .docx or remove it."
            )
        blocks, stopped = self._check(path, self._run(path).result)
        title = next((b.text for b in blocks if b.kind is BlockKind.TITLE), None)
        if title is None:  # a Markdown or HTML document's first top-level heading names it
            first = next((b for b in blocks if b.kind is BlockKind.HEADING), None)
            if first is not None and first.level <= 1 and blocks.index(first) <= 2:
                title = first.text
        return ConvertedDocument(
            source_path=str(path),
            sha256=sha256,
            title=title,
            page_count=None,
            blocks=tuple(blocks),
            converter=self.converter_id,
            warnings=(stopped,) if stopped is not None else (),
        )

    def _check(self, path: Path, result: Any) -> tuple[list[Block], ConversionWarning | None]:
        """Blocks of a finished conversion and, if it stopped short, what stopped it; or a
        ``DocumentError`` saying why there are no blocks."""
        blocks = blocks_from_docling(result.document) if result.document is not None else []
        return blocks, self._status(path, result, bool(blocks))

    def _read(
        self, path: Path, result: Any
    ) -> tuple[list[tuple[Block, MarginKey | None]], ConversionWarning | None]:
        """``_check`` for one batch of a PDF's pages: its blocks keyed for
        ``drop_running_heads``, judged once every batch is read."""
        keyed = keyed_blocks(result.document) if result.document is not None else []
        return keyed, self._status(path, result, bool(keyed))

    def _status(self, path: Path, result: Any, has_blocks: bool) -> ConversionWarning | None:
        from docling.datamodel.base_models import ConversionStatus, FailureCategory

        errors = list(result.errors or [])
        reasons = "; ".join(e.error_message for e in errors)
        timed_out = any(e.category is FailureCategory.TIMEOUT for e in errors)
        blocks = has_blocks
        limit = f"the time limit of {self.timeout_s:g} s"
        if timed_out and not blocks:
            raise DocumentError(
                f"{path}: conversion stopped after {limit} before any text was extracted. "
                "Raise [conversion] timeout_s if the file is sound."
            )
        if result.status is ConversionStatus.FAILURE or result.document is None:
            raise DocumentError(
                f"{path}: conversion failed ({reasons or 'no output'}). The file may be "
                "damaged; re-download or re-export it."
            )
        if result.status is not ConversionStatus.PARTIAL_SUCCESS:
            return None
        if timed_out:
            message = f"conversion stopped after {limit} ([conversion] timeout_s)"
            return ConversionWarning(WarningKind.TIMEOUT, message)
        return ConversionWarning(WarningKind.PARTIAL, reasons or "some pages failed")


def _ranges(pages: list[int]) -> str:
    """[1, 2, 3, 5] -> '1-3, 5'."""
    out: list[str] = []
    for page in pages:
        if out and out[-1].split("-")[-1] == str(page - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{page}"
        else:
            out.append(str(page))
    return ", ".join(out) or "none"


def pdf_pipeline_options(
    *, ocr: str, ocr_languages: tuple[str, ...], timeout_s: float, artifacts_path: Path | None
) -> Any:
    """Docling's PDF pipeline options: the rules layout (or Docling's trained model, with its
    weights in ``artifacts_path``), OCR for pages without text, heading levels from
    bookmarks, numbering and style, no table-structure model."""
    from docling.datamodel.pipeline_options import (
        HeadingHierarchyOptions,
        OcrMode,
        TesseractCliOcrOptions,
        ThreadedPdfPipelineOptions,
    )

    from citeloom.adapters.conversion.heuristic_layout import RulesLayoutOptions

    tesseract = (
        TesseractCliOcrOptions(lang=list(ocr_languages), mode=OcrMode.FULL_PAGE)
        if ocr != "never"
        else None
    )
    if tesseract is not None:
        # Tesseract runs OpenMP threads that spin while they wait: one page at 300 dpi cost 7.2 s
        # of CPU with them and 3.0 s on one thread, in less wall time on a busy machine (ADR
        # 0030). The CLI inherits this process's environment; a user's own setting wins.
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    options = ThreadedPdfPipelineOptions(
        do_table_structure=False,
        generate_parsed_pages=True,  # heading levels from font style need the parsed cells
        heading_hierarchy_options=HeadingHierarchyOptions(enabled=True),
        document_timeout=timeout_s,
    )
    if artifacts_path is None:
        options.do_ocr = False  # OCR runs inside the rules layout stage, where it can help
        options.layout_options = RulesLayoutOptions(ocr_mode=ocr, ocr_options=tesseract)
    else:
        options.artifacts_path = artifacts_path  # weights from here: Docling never downloads
        options.do_ocr = tesseract is not None
        if tesseract is not None:
            tesseract.mode = OcrMode.FULL_PAGE if ocr == "always" else OcrMode.DEFAULT
            options.ocr_options = tesseract
    return options


def build_rules_pdf_converter(*, ocr: str, ocr_languages: tuple[str, ...], timeout_s: float) -> Any:
    """PDFs with the rules layout, on Docling's standard pipeline without page images, and
    without torch (see ``slim_import``)."""
    from citeloom.adapters.conversion.slim_import import without_torch

    with without_torch():
        from citeloom.adapters.conversion.rules_pipeline import RulesPdfConverter

        options = pdf_pipeline_options(
            ocr=ocr, ocr_languages=ocr_languages, timeout_s=timeout_s, artifacts_path=None
        )
        return RulesPdfConverter(options)


def build_converter(
    *,
    ocr: str,
    ocr_languages: tuple[str, ...],
    timeout_s: float,
    artifacts_path: Path | None = None,
) -> Any:
    """A DocumentConverter: DOCX, HTML and Markdown with the simple pipeline, PDFs with the
    standard pipeline and Docling's trained layout model, whose weights are in
    ``artifacts_path`` (used for PDFs only when they are)."""
    from docling.datamodel.backend_options import ThreadedDoclingParseBackendOptions
    from docling.datamodel.base_models import InputFormat
    from docling.document_converter import (
        DocumentConverter,
        HTMLFormatOption,
        MarkdownFormatOption,
        PdfFormatOption,
        WordFormatOption,
    )

    from citeloom.adapters.conversion.docling_compat import OwnModelsPdfPipeline

    options = pdf_pipeline_options(
        ocr=ocr, ocr_languages=ocr_languages, timeout_s=timeout_s, artifacts_path=artifacts_path
    )
    return DocumentConverter(
        allowed_formats=[InputFormat.PDF, InputFormat.DOCX, InputFormat.HTML, InputFormat.MD],
        format_options={
            InputFormat.PDF: PdfFormatOption(
                pipeline_cls=OwnModelsPdfPipeline,
                pipeline_options=options,
                backend_options=ThreadedDoclingParseBackendOptions(),
            ),
            InputFormat.DOCX: WordFormatOption(),
            InputFormat.HTML: HTMLFormatOption(),
            InputFormat.MD: MarkdownFormatOption(),
        },
    )
