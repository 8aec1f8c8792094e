"""Smoke tests of every Docling internal citeloom relies on (``docling_compat``), against the
pinned, real Docling. Each failure names the Docling internal that changed and the name in
``citeloom.adapters.conversion.docling_compat`` to update; and converting must leave the
process as it found it (environment, Docling's plugin factories, temporary folders)."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import PAPERS

pytestmark = pytest.mark.real

RULED = PAPERS / "grobid_1001._0908.0054.pdf"  # 4 pages, rules and boxes on three of them
UPDATE = "citeloom.adapters.conversion.docling_compat.{} needs updating"


def _docling_parts():
    """Docling's modules as the rules path imports them (without torch)."""
    from citeloom.adapters.conversion.slim_import import without_torch

    with without_torch():
        from docling.datamodel.base_models import InputFormat, Page
        from docling.datamodel.document import InputDocument

        from citeloom.adapters.conversion import docling_compat
    return SimpleNamespace(
        InputFormat=InputFormat, Page=Page, InputDocument=InputDocument, compat=docling_compat
    )


def _open(pdf: Path, backend: type) -> object:
    parts = _docling_parts()
    return parts.InputDocument(path_or_stream=pdf, format=parts.InputFormat.PDF, backend=backend)


def _assigned_self_attributes(code: type | Callable[..., object]) -> set[str]:
    """Names a function or class assigns as ``self.<name> = ...``, read from its source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
    except (OSError, TypeError):  # no source: a builtin or generated class
        return set()
    targets = [t for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets]
    targets += [n.target for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]
    return {t.attr for t in targets if _on_self(t) and getattr(t.value, "id", "") == "self"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _on_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and getattr(node.value, "id", None) in ("self", "cls")


def _private_uses(source: str) -> list[str]:
    """Private names of others a module reaches for: imported (``from docling.x import
    _y``) or read off another object (``page._backend``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("docling"):
            found += [f"import {a.name}" for a in node.names if _private(a.name)]
        if isinstance(node, ast.Attribute) and _private(node.attr) and not _on_self(node):
            found.append(ast.unparse(node))
    return found


def _self_privates(cls: ast.ClassDef) -> set[str]:
    """Private names a class defines, sets or reads on itself."""
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef) and _private(n.name)}
    return names | {n.attr for n in ast.walk(cls) if _on_self(n) and _private(n.attr)}


def _docling_privates(cls: type) -> set[str]:
    """Private names of the Docling classes ``cls`` derives from: methods, class attributes,
    pydantic private attributes and attributes their code sets on ``self``."""
    names: set[str] = set()
    for base in cls.__mro__[1:]:
        if not base.__module__.startswith("docling"):
            continue
        names |= set(vars(base)) | set(getattr(base, "__private_attributes__", {}))
        names |= _assigned_self_attributes(base)
    return {name for name in names if _private(name)}


def test_no_module_but_docling_compat_touches_docling_s_private_names():
    _docling_parts()
    import citeloom.adapters.conversion as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name == "docling_compat":
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        source = inspect.getsource(module)
        uses = _private_uses(source)
        for node in ast.parse(source).body:
            if isinstance(node, ast.ClassDef):
                docling = _docling_privates(getattr(module, node.name))
                uses += [f"{node.name}: self.{n}" for n in sorted(_self_privates(node) & docling)]
        if uses:
            found[info.name] = uses
    assert found == {}, "wrap these in docling_compat, with a smoke test here"


def test_the_private_use_finder_finds_them():
    from docling.backend.docling_parse_backend import ThreadedDoclingParsePageBackend

    source = "page._backend.unload()\nfrom docling.x import _y\nself._z = 1"
    assert _private_uses(source) == ["import _y", "page._backend"]
    subclass = ast.parse("class B:\n    def _own(self):\n        return self._result, self._mine")
    assert _self_privates(subclass.body[0]) == {"_own", "_result", "_mine"}
    docling = _docling_privates(type("B", (ThreadedDoclingParsePageBackend,), {}))
    assert {"_result", "_seg_page"} <= docling and "_mine" not in docling


# ------------------------------------------------------------------ reading-order separators
def test_docling_still_drops_every_separator_of_a_page_with_too_many_candidates():
    from docling.models.postprocessing import reading_order_rb

    for name in ("_AXIS_ALIGNMENT_TOLERANCE", "_MAX_SEPARATOR_CANDIDATES"):
        assert hasattr(reading_order_rb, name), (
            f"docling.models.postprocessing.reading_order_rb.{name} no longer exists: "
            + UPDATE.format(name.lstrip("_"))
        )
    from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, Size

    compat = _docling_parts().compat
    limit = compat.MAX_SEPARATOR_CANDIDATES

    def rules(count: int) -> list[BoundingBox]:  # thin horizontal rules down the page
        step = 700 / count
        return [
            BoundingBox(
                l=50, t=40 + i * step, r=560, b=40 + i * step, coord_origin=CoordOrigin.TOPLEFT
            )
            for i in range(count)
        ]

    size = Size(width=612, height=792)
    text = [  # a line of text above every rule and one below: rules between content count
        reading_order_rb.PageElement(
            l=50,
            t=top,
            r=560,
            b=top + 12,
            coord_origin=CoordOrigin.TOPLEFT,
            cid=cid,
            text="Text",
            page_no=1,
            page_size=size,
            label=DocItemLabel.TEXT,
        )
        for cid, top in enumerate((10, 765))
    ]

    def separators(lines: list[BoundingBox]) -> list[object]:
        return reading_order_rb.build_page_separators(
            page_no=1,
            page_size=size,
            page_elements=text,
            shape_lines=lines,
            shape_bounding_boxes=None,
        )

    assert separators(rules(3)), "a page with three rules has separators"
    assert separators(rules(limit + 1)) == [], (
        "Docling keeps separators on a page with more than _MAX_SEPARATOR_CANDIDATES "
        "candidates: rules_pipeline._capture_rules may no longer drop them beforehand, and "
        + UPDATE.format("MAX_SEPARATOR_CANDIDATES")
    )


def test_rules_are_only_dropped_from_pages_where_docling_drops_them_all():
    # the page-level shortcut may count a segment only if Docling takes it as a candidate
    from docling.models.postprocessing.reading_order_rb import _candidate_separator
    from docling_core.types.doc import BoundingBox, CoordOrigin, Size

    _docling_parts()
    from citeloom.adapters.conversion.rules_pipeline import sure_candidates

    width, height = 612.0, 792.0
    sizes = [0.0, 1e-4, 4.9e-4, 5e-4, 5.1e-4, 9.9e-4, 1e-3, 1.01e-3, 0.3, 2.0, 40.0]
    starts = [-50.0, -2.0, 0.0, 300.0, 611.9995, 612.0, 700.0]
    boxes = [
        BoundingBox(l=x, t=y, r=x + w, b=y + h, coord_origin=CoordOrigin.TOPLEFT)
        for w in sizes
        for h in sizes
        for x in starts
        for y in (-40.0, 0.0, 400.0, 791.9995, 800.0)
    ]
    size = Size(width=width, height=height)
    sure = [box for box in boxes if sure_candidates([(box.l, box.t, box.r, box.b)], width, height)]
    taken = [
        _candidate_separator(box, page_no=1, page_size=size, allow_thickness=False) is not None
        for box in sure
    ]
    assert len(sure) > 100 and all(taken), (
        "reading_order_rb._candidate_separator changed its rule: "
        + UPDATE.format("sure_candidates")
    )


# ------------------------------------------------------------------ pages and input documents
def test_pages_still_hold_their_backend_and_rules_where_docling_reads_them():
    parts = _docling_parts()
    private = parts.Page.__private_attributes__
    for name, wrapper in (
        ("_backend", "page_backend"),
        ("_shape_lines", "keep_shape_geometry"),
        ("_shape_bounding_boxes", "keep_shape_geometry"),
    ):
        assert name in private, f"docling Page.{name} no longer exists: " + UPDATE.format(wrapper)
    from docling.models.stages.reading_order.readingorder_model import ReadingOrderModel

    reader = inspect.getsource(ReadingOrderModel)
    for name in ("page._shape_lines", "page._shape_bounding_boxes"):
        assert name in reader, f"Docling's reading order no longer reads {name}: " + UPDATE.format(
            "keep_shape_geometry"
        )


@pytest.mark.shared
def test_release_input_closes_the_backend_of_a_document():
    from docling.backend.docling_parse_backend import ThreadedDoclingParseDocumentBackend

    parts = _docling_parts()
    document = _open(RULED, ThreadedDoclingParseDocumentBackend)
    backend = getattr(document, "_backend", None)
    assert backend is not None and backend.is_valid(), (
        "InputDocument._backend no longer holds the backend: " + UPDATE.format("release_input")
    )
    parts.compat.release_input(document)
    assert not backend.is_valid()


@pytest.mark.shared
def test_the_noted_input_document_travels_with_the_conversion_result():
    from docling.datamodel.document import ConversionResult

    _docling_parts()
    from citeloom.adapters.conversion.heuristic_layout import NotedInputDocument, notes_of
    from citeloom.adapters.conversion.layout_notes import LayoutNotes
    from citeloom.adapters.conversion.parse_backend import LeanParseBackend

    notes = LayoutNotes()
    document = NotedInputDocument(
        notes=notes,
        path_or_stream=RULED,
        format=_docling_parts().InputFormat.PDF,
        backend=LeanParseBackend,
    )
    assert notes_of(ConversionResult(input=document)) is notes, (
        "ConversionResult no longer keeps the InputDocument it is given: the layout notes of "
        "heuristic_layout.NotedInputDocument need another way to the layout stage"
    )
    _docling_parts().compat.release_input(document)


# ------------------------------------------------------------------ docling-parse backends
@pytest.mark.shared
def test_the_backend_constructor_sets_everything_the_stock_one_sets():
    from docling.backend.docling_parse_backend import ThreadedDoclingParseDocumentBackend

    from citeloom.adapters.conversion.parse_backend import LeanParseBackend

    compat = _docling_parts().compat
    stock, lean = _open(RULED, ThreadedDoclingParseDocumentBackend), _open(RULED, LeanParseBackend)
    try:
        missing = set(vars(stock._backend)) - set(vars(lean._backend))
        assert not missing, (
            f"ThreadedDoclingParseDocumentBackend.__init__ now also sets {sorted(missing)}: "
            + UPDATE.format("ParseDocumentBackend")
        )
        assert lean.page_count == stock.page_count == 4
    finally:
        compat.release_input(stock)
        compat.release_input(lean)


@pytest.mark.shared
def test_the_lean_backend_reads_the_lines_and_rules_the_stock_backend_reads():
    from docling.backend.docling_parse_backend import (
        ThreadedDoclingParseDocumentBackend,
        ThreadedDoclingParsePageBackend,
    )

    from citeloom.adapters.conversion.parse_backend import LeanParseBackend

    compat = _docling_parts().compat
    assert "_result" in _assigned_self_attributes(ThreadedDoclingParsePageBackend.__init__), (
        "ThreadedDoclingParsePageBackend._result no longer exists: " + UPDATE.format("page_decoder")
    )

    def read(backend: type) -> dict[int, tuple[list, list, list, int]]:
        document = _open(RULED, backend)
        pages = {}
        try:
            for page in document._backend.iter_pages():
                assert hasattr(page._result, "_require_page_decoder"), (
                    "docling-parse's page result has no _require_page_decoder() any more: "
                    + UPDATE.format("page_decoder")
                )
                cells = page.get_segmented_page().textline_cells
                box = [(c.text, round(c.rect.r_x0, 2), round(c.rect.r_y0, 2)) for c in cells]
                rules = [tuple(round(v, 2) for v in b.as_tuple()) for b in page.get_shape_lines()]
                shapes = page.get_connected_shape_bounding_boxes()
                shape_boxes = [tuple(round(v, 2) for v in b.as_tuple()) for b in shapes]
                chars = len(page.char_boxes()) if hasattr(page, "char_boxes") else -1
                pages[page.page_no] = (box, sorted(rules), sorted(shape_boxes), chars)
        finally:
            compat.release_input(document)
        return pages

    stock, lean = read(ThreadedDoclingParseDocumentBackend), read(LeanParseBackend)
    assert sorted(stock) == sorted(lean) == [1, 2, 3, 4]
    for page_no, (lines, rules, shapes, _) in stock.items():
        assert len(lean[page_no][0]) == len(lines), f"page {page_no}"
        for mine, theirs in zip(lean[page_no][0], lines, strict=True):
            assert _same_line(mine, theirs), f"page {page_no}: {mine} against {theirs}"
        assert lean[page_no][1:3] == (rules, shapes), f"page {page_no}"
        assert lean[page_no][3] > 100, "page_decoder(...).get_char_cells() reads characters"
    assert any(rules for _, rules, _, _ in lean.values())
    # the stock backend reads this PDF's "∝" (a glyph named in StandardSymL) as U+FFFD; the
    # lean one puts pdfium's reading there, which needs the decoder's characters (their
    # boxes) to line up with the stock line cells
    stock_lines = [line[0] for page in stock.values() for line in page[0]]
    lean_lines = [line[0] for page in lean.values() for line in page[0]]
    assert any("\ufffd" in text for text in stock_lines)
    assert not any("\ufffd" in text for text in lean_lines)


def _same_line(mine: tuple[str, float, float], theirs: tuple[str, float, float]) -> bool:
    """The same line cell, its replacement characters (if any) read as one to four others."""
    pattern = ".{1,4}".join(re.escape(part) for part in theirs[0].split("\ufffd"))
    return mine[1:] == theirs[1:] and re.fullmatch(pattern, mine[0], re.S) is not None


# ------------------------------------------------------------------ the PDF pipeline
def test_the_pipeline_builds_every_model_docling_builds():
    from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline

    compat = _docling_parts().compat
    assert "self._init_models()" in inspect.getsource(StandardPdfPipeline.__init__), (
        "StandardPdfPipeline.__init__ no longer calls _init_models: "
        + UPDATE.format("OwnModelsPdfPipeline")
    )
    assert callable(getattr(StandardPdfPipeline, "_make_ocr_model", None)), (
        "StandardPdfPipeline._make_ocr_model no longer exists: "
        + UPDATE.format("OwnModelsPdfPipeline._init_models")
    )
    docling = _assigned_self_attributes(StandardPdfPipeline._init_models)
    ours = _assigned_self_attributes(compat.OwnModelsPdfPipeline._init_models)
    assert docling == ours, (
        f"StandardPdfPipeline._init_models now sets {sorted(docling - ours)} and no longer "
        f"{sorted(ours - docling)}: " + UPDATE.format("OwnModelsPdfPipeline._init_models")
    )


# ------------------------------------------------------------------ no state, no side effects
def test_the_conversion_adapters_keep_no_module_level_state():
    """Module-level state would be shared by every converter of the process (and every
    conversion of a server): constants only, no container anyone could fill."""
    _docling_parts()
    import citeloom.adapters.conversion as package

    mutable = (dict, list, set, bytearray, type(threading.Lock()))
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, mutable) and not name.startswith("__"):
                found.append(f"{info.name}.{name}")
    assert found == []


SIDE_EFFECTS_PROBE = """
import gc, json, os, sys, tempfile
from pathlib import Path
from citeloom.adapters.conversion.docling_converter import DoclingConverter
from citeloom.config import Environment
from citeloom.domain.errors import CiteloomError

environ, meta_path = dict(os.environ), list(sys.meta_path)
pdf, markdown = Path(sys.argv[1]), Path(sys.argv[2])
rules = DoclingConverter(layout="rules")
converted = [len(rules.convert(p, c * 64).blocks) for p, c in ((pdf, "0"), (markdown, "1"))]
# the weights: a fake in HF_HOME's hub cache, which the settings read
trained = DoclingConverter(layout="auto", hub=Environment().hf_hub)
try:
    trained.convert(pdf, "2" * 64)
    outcome = "converted"
except CiteloomError as error:
    outcome = type(error).__name__
links_while_alive = sorted(p.name for p in Path(tempfile.gettempdir()).iterdir())
del trained
gc.collect()

from docling.models import factories
from docling.models.plugins import defaults
print(json.dumps({
    "converted": converted,
    "layout": outcome,
    "environ": sorted(set(os.environ.items()) ^ set(environ.items())),
    # import hooks left by citeloom (transformers, once imported, adds one of its own)
    "meta_path": [repr(f) for f in sys.meta_path if type(f).__module__.startswith("citeloom")],
    "table_plugins": defaults.table_structure_engines.__module__,
    "table_factory_built": factories.get_table_structure_factory.cache_info().currsize,
    "layout_kinds": factories.get_layout_factory(allow_external_plugins=False).registered_kind,
    "links_while_alive": links_while_alive,
    "temp_left": sorted(p.name for p in Path(tempfile.gettempdir()).iterdir()),
}))
"""


@pytest.mark.shared
def test_converting_leaves_the_environment_docling_and_the_temp_folder_as_they_were(tmp_path):
    # the trained layout path too: weights found in the Hugging Face cache are linked into a
    # temporary folder of the converter's, which goes with the converter
    snapshot = tmp_path / "hf/hub/models--docling-project--docling-layout-heron/snapshots/0123"
    snapshot.mkdir(parents=True)
    (snapshot / "model.safetensors").write_bytes(b"not weights")
    (tmp_path / "tmp").mkdir()
    markdown = tmp_path / "note.md"
    markdown.write_text("# A note\n\nSome text about tidal creeks.\n", encoding="utf-8")
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "TMPDIR": str(tmp_path / "tmp")}
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("OMP_THREAD_LIMIT", None)  # an earlier test's conversion may have set it here
    out = subprocess.run(
        [sys.executable, "-c", SIDE_EFFECTS_PROBE, str(PAPERS / "grobid_two_pages.pdf"), markdown],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert all(seen["converted"]) and seen["layout"] == "DocumentError"  # the fake weights
    # no HF_HUB_OFFLINE or anything else set for the process, but the one thread Tesseract's
    # OpenMP may use (ADR 0030: the CLI inherits the process's environment)
    assert seen["environ"] == [["OMP_THREAD_LIMIT", "1"]]
    assert seen["meta_path"] == []
    assert seen["table_plugins"] == "docling.models.plugins.defaults"
    assert seen["table_factory_built"] == 0
    assert "citeloom_rules_layout" not in seen["layout_kinds"]
    assert any(n.startswith("citeloom-docling-artifacts-") for n in seen["links_while_alive"])
    assert seen["temp_left"] == []


# ------------------------------------------------------------------ reading order by scan
def test_the_box_scan_finds_what_an_r_tree_finds_edges_included():
    import random

    from rtree import index

    compat = _docling_parts().compat
    rng = random.Random(7)
    for _ in range(40):
        boxes = []
        for _ in range(rng.randint(1, 150)):  # past an R-tree leaf's 100: nodes split
            left, bottom = rng.choice((0, 10, 20, 30)), rng.choice((0, 10, 20, 30))
            boxes.append((left, bottom, left + rng.choice((0, 5, 10)), bottom + 10))
        elements = [SimpleNamespace(l=l, b=b, r=r, t=t) for l, b, r, t in boxes]
        tree = index.Index()
        for i, box in enumerate(boxes):
            tree.insert(i, box)
        scan = compat._BoxScan(elements)
        for query in [(10, 10, 20, 20), (0, 30, 40, float("inf")), (15, 5, 15, 5)]:
            assert scan.intersection(query) == sorted(tree.intersection(query)), query


def test_docling_s_sequence_test_asks_its_r_tree_one_thing():
    """The scan stands in for the R-tree only where Docling asks it for the elements that
    meet a rectangle; another question would be answered wrongly."""
    from docling.models.postprocessing.reading_order_rb import ReadingOrderPredictor

    source = inspect.getsource(ReadingOrderPredictor._has_sequence_interruption)
    uses = source.count("spatial_idx")
    asks = source.count("spatial_idx.intersection(")
    assert asks == 1 and uses == 2, (
        "ReadingOrderPredictor._has_sequence_interruption uses its R-tree differently: "
        + UPDATE.format("ScanReadingOrderPredictor")
    )
    calls = inspect.getsource(ReadingOrderPredictor._init_ud_maps)
    assert "self._has_sequence_interruption(" in calls and "rtree_index.Index()" in calls, (
        "ReadingOrderPredictor._init_ud_maps no longer builds an R-tree a call: "
        + UPDATE.format("ScanReadingOrderPredictor")
    )


@pytest.mark.shared
@pytest.mark.parametrize("name", ["grobid_submission_161.pdf", "grobid_test_Grobid_1_05452615.pdf"])
def test_a_two_column_paper_reads_in_the_order_docling_s_own_predictor_gives(name, monkeypatch):
    from docling.models.postprocessing.reading_order_rb import ReadingOrderPredictor

    from citeloom.adapters.conversion.docling_converter import DoclingConverter
    from citeloom.domain.ids import sha256_of_file

    compat = _docling_parts().compat
    pdf = PAPERS / name
    scans = []
    scanning = compat._BoxScan.intersection

    def counted(self, query):
        scans.append(query)
        return scanning(self, query)

    monkeypatch.setattr(compat._BoxScan, "intersection", counted)
    ours = DoclingConverter(ocr="never").convert(pdf, sha256_of_file(pdf))
    assert scans, "the scan was not used: the pipeline builds Docling's own predictor"
    monkeypatch.setattr(compat, "ScanReadingOrderPredictor", ReadingOrderPredictor)
    docling = DoclingConverter(ocr="never").convert(pdf, sha256_of_file(pdf))
    assert [(b.kind, b.page, b.text) for b in ours.blocks] == [
        (b.kind, b.page, b.text) for b in docling.blocks
    ]
