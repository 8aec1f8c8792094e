"""What citeloom reads from a DoclingDocument: reading-ordered blocks, the running heads to drop,
the margins where identifiers and printed page numbers are, and how the batches of one PDF's
pages are put together as one conversion of the whole PDF (``PdfReading``, ADR 0024).

Docling's document types are only touched through attribute access here; the one import of
``docling_core`` is inside the functions that need its enums.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import sys
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from citeloom.domain.ligatures import mend_ligatures
from citeloom.domain.models import Block, BlockKind, ConversionWarning
from citeloom.domain.page_labels import PageMarks
from citeloom.domain.text import fold_for_match, normalise_text
from citeloom.resources import LIGATURE_WORDS

if TYPE_CHECKING:
    from citeloom.adapters.conversion.layout_notes import DoclingRun

_KINDS: Mapping[str, BlockKind] = MappingProxyType(
    {
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
)


MarginKey = tuple[str, int]


def blocks_from_docling(document: Any) -> list[Block]:
    """Reading-ordered blocks from a DoclingDocument's body (furniture is never iterated)."""
    return drop_running_heads(keyed_blocks(document), margin_pages(document), len(document.pages))


def keyed_blocks(document: Any) -> list[tuple[Block, MarginKey | None]]:
    """The body's blocks, each with the key of its text near a page edge (None for a heading
    or text elsewhere): what ``drop_running_heads`` judges once the whole PDF is read."""
    blocks: list[tuple[Block, MarginKey | None]] = []
    for item, _depth in document.iterate_items():
        label = str(getattr(item, "label", ""))
        kind = _KINDS.get(label)
        if kind is None:
            continue
        page = item.prov[0].page_no if getattr(item, "prov", None) else None
        if kind is BlockKind.TABLE:
            pieces = [(page, item.export_to_markdown(doc=document))]
        else:
            pieces = page_pieces(item)
        key = None if kind is BlockKind.HEADING else _margin_key(item, document)
        level = int(getattr(item, "level", 1) or 1) if kind is BlockKind.HEADING else 0
        for on, piece in pieces:
            text = normalise_text(piece)
            if text:
                blocks.append((Block(text=text, kind=kind, page=on, level=level), key))
    return blocks


def page_pieces(item: Any) -> list[tuple[int | None, str]]:
    """An element's text by the page each part is printed on.

    Docling's reading order merges a paragraph that a page break cut into one element whose
    provenance lists a character span per page. Kept whole, everything after the break was
    filed under the first page: the sentences at the top of p. 21 were cited as p. 20, and a
    paragraph that a figure page interrupted was filed two pages early. Each page's part is a
    block of its own, on its own page."""
    text = getattr(item, "text", "") or ""
    prov = getattr(item, "prov", None) or []
    pages = [p.page_no for p in prov]
    if len(set(pages)) < 2:
        return [(pages[0] if pages else None, text)]
    pieces: list[tuple[int | None, str]] = []
    start = 0
    for here, after in zip(prov, [*prov[1:], None], strict=True):
        if after is None or after.page_no != here.page_no:
            end = len(text) if after is None else here.charspan[1]
            pieces.append((here.page_no, text[start:end]))
            start = end
    return pieces


def drop_running_heads(
    blocks: list[tuple[Block, MarginKey | None]],
    pages_of: dict[MarginKey, set[int]],
    total_pages: int,
) -> list[Block]:
    """The blocks without the running heads the layout rules missed: the same margin text
    on many of the PDF's ``total_pages`` (``pages_of``: where each margin text occurs)."""
    threshold = max(3, int(0.4 * max(total_pages, 1)))
    furniture = {key for key, pages in pages_of.items() if len(pages) >= threshold}
    return [block for block, key in blocks if key is None or key not in furniture]


MARGIN_PAGES = 2  # the first pages, whose margins are read for identifiers


def margin_parts(document: Any, pages: int = MARGIN_PAGES) -> list[str]:
    """Page headers, footers and margin stamps of the first pages (Docling's furniture), and
    the words the layout put inside a picture there: a publisher's head whose DOI line sits
    beside its logo (Hindawi, Cambridge) is read as part of the logo's picture. Never
    chunked; where identifiers are printed."""
    from docling_core.types.doc import ContentLayer

    parts = []
    layers = {ContentLayer.BODY, ContentLayer.FURNITURE}
    for item, _depth in document.iterate_items(
        included_content_layers=layers, traverse_pictures=True
    ):
        prov = getattr(item, "prov", None)
        if not (prov and prov[0].page_no <= pages and getattr(item, "text", "")):
            continue
        if item.content_layer == ContentLayer.FURNITURE or _in_picture(item, document):
            parts.append(normalise_text(item.text))
    return parts


def _in_picture(item: Any, document: Any) -> bool:
    """Whether an item is held by a picture (its parent, or an ancestor, is one)."""
    parent = getattr(item, "parent", None)
    for _ in range(16):  # a picture's children are shallow; the bound keeps a cycle harmless
        if parent is None:
            return False
        if str(parent.cref).startswith("#/pictures/"):
            return True
        parent = getattr(parent.resolve(document), "parent", None)
    return False


# How close to the top or bottom edge (a share of the page height) a line must lie, wholly, to
# be a running head or a footer: where page numbers are printed.
MARGIN_BAND = 0.12
ROW_TOLERANCE = 0.01  # lines this close to a page's first or last row are on that row


def margin_lines(document: Any) -> tuple[tuple[int, str], ...]:
    """Short lines of a page's running head and footer, body and furniture alike, with their
    page: those lying wholly in the top or bottom band, and the page's first and last rows of
    text wherever they sit (a wide margin puts a running head lower than the band). The
    evidence of printed page numbers (``domain.page_labels``)."""
    from docling_core.types.doc import ContentLayer

    rows: dict[int, list[tuple[float, float, str]]] = defaultdict(list)
    layers = {ContentLayer.BODY, ContentLayer.FURNITURE}
    for item, _depth in document.iterate_items(included_content_layers=layers):
        prov = getattr(item, "prov", None)
        text = getattr(item, "text", "")
        if not prov or not text:
            continue
        page = document.pages.get(prov[0].page_no)
        if page is None or page.size is None or not page.size.height:
            continue
        box = prov[0].bbox.to_top_left_origin(page.size.height)
        top, bottom = box.t / page.size.height, box.b / page.size.height
        rows[prov[0].page_no].append((top, bottom, normalise_text(text)))
    lines: list[tuple[int, str]] = []
    for page_no, items in sorted(rows.items()):
        first = min(top for top, _, _ in items)
        last = max(bottom for _, bottom, _ in items)
        for top, bottom, text in items:
            in_band = bottom <= MARGIN_BAND or top >= 1 - MARGIN_BAND
            extreme = top <= first + ROW_TOLERANCE or bottom >= last - ROW_TOLERANCE
            if (in_band or extreme) and len(text) <= 120:
                lines.append((page_no, text))
    return tuple(dict.fromkeys(lines))


def page_marks(
    pages: int,
    pdf_labels: tuple[str, ...],
    margins: tuple[tuple[int, str], ...],
    blocks: list[Block],
) -> PageMarks:
    """What the PDF says about its pages, for ``domain.page_labels`` to decide the labels."""
    text: dict[int, list[str]] = defaultdict(list)
    for block in blocks:
        if block.page is not None:
            text[block.page].append(block.text)
    return PageMarks(
        pdf_labels=pdf_labels,
        margin_lines=margins,
        page_words=tuple(sum(len(t.split()) for t in text[p]) for p in range(1, pages + 1)),
        page_openings=tuple(" ".join(text[p])[:200] for p in range(1, pages + 1)),
    )


def mend_lost_ligatures(blocks: list[Block]) -> list[Block]:
    """The blocks with a replacement character the glyph names left read as the ligature
    that makes its word one the document or the word list knows (``domain.ligatures``)."""
    texts = mend_ligatures([b.text for b in blocks], ligature_words)
    return [b if b.text == t else replace(b, text=t) for b, t in zip(blocks, texts, strict=True)]


@lru_cache(maxsize=1)
def ligature_words() -> frozenset[str]:
    """The shipped word list of words with an fi, fl or ff, read once, when first needed."""
    lines = LIGATURE_WORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w and not w.startswith("#"))


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


def margin_pages(document: Any) -> dict[MarginKey, set[int]]:
    """The pages on which each short text near a page edge occurs."""
    pages_of: dict[MarginKey, set[int]] = defaultdict(set)
    for item, _ in document.iterate_items():
        key = _margin_key(item, document)
        if key is not None:
            pages_of[key].add(item.prov[0].page_no)
    return pages_of


@dataclass
class PdfReading:
    """What the batches of one PDF's pages gave, put together as one conversion of the
    whole PDF would have given it."""

    blocks: list[tuple[Block, MarginKey | None]] = field(default_factory=list)
    pages_of: dict[MarginKey, set[int]] = field(default_factory=lambda: defaultdict(set))
    margin_lines: list[tuple[int, str]] = field(default_factory=list)
    margins: list[str] = field(default_factory=list)  # ``margin_parts`` of the first pages
    converted_pages: int = 0
    title: str | None = None
    ocr_pages: set[int] = field(default_factory=set)
    warnings: list[ConversionWarning] = field(default_factory=list)
    stopped: ConversionWarning | None = None

    def add(self, run: DoclingRun, keyed: list[tuple[Block, MarginKey | None]], first: int) -> None:
        self.blocks.extend(keyed)
        document = run.result.document
        if document is not None:
            for key, pages in margin_pages(document).items():
                self.pages_of[key] |= pages
            self.margin_lines.extend(margin_lines(document))
            if first <= MARGIN_PAGES:  # the first pages' margins: where identifiers are
                self.margins.extend(margin_parts(document))
            self.converted_pages += len(document.pages)
        self.title = self.title or run.notes.title
        self.ocr_pages |= run.notes.ocr_pages
        self.warnings.extend(run.notes.warnings)

    @property
    def margin_text(self) -> str:
        return "\n".join(dict.fromkeys(self.margins))


def release_freed_memory() -> None:
    """Hand the heap memory a batch of pages freed back to the system (glibc keeps it, in
    pieces the next batch and the embedder's arena cannot always reuse, so a long PDF's
    peak would still grow with it). Nothing elsewhere, or where glibc is not the C library."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # musl and others: no malloc_trim
        return
