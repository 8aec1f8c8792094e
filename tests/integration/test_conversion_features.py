"""Conversion features beyond plain PDFs: formats, OCR modes, limits, cache, layout choice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.adapters.conversion.cache import CachingConverter
from citeloom.adapters.conversion.docling_converter import (
    DoclingConverter,
    describe_layout,
    layout_choice,
    pdf_pipeline_options,
)
from citeloom.adapters.conversion.plain_text import PlainTextConverter
from citeloom.adapters.conversion.router import FormatRouter
from citeloom.domain.errors import ConverterUnavailable, DocumentError
from citeloom.domain.models import BlockKind, WarningKind
from tests.conftest import PAPERS
from tests.integration.test_conversion_real import needs_tesseract

pytestmark = pytest.mark.real

MARKDOWN = """# Quiet Offices

An introduction to open-plan research offices.

## 1 Methods

We logged interruptions with desk counters.

### 1.1 Counters

The counters stored timestamps only.

| room | interruptions |
|------|---------------|
| A    | 11            |
"""

HTML = """<html><head><title>Quiet Offices</title></head><body>
<h1>Quiet Offices</h1><p>An introduction.</p>
<h2>1 Methods</h2><p>We logged interruptions.</p>
<h3>1.1 Counters</h3><p>The counters stored timestamps only.</p>
<ul><li>first item</li></ul></body></html>"""


def sections(doc) -> list[tuple[str, int]]:
    return [(b.text, b.level) for b in doc.blocks if b.kind is BlockKind.HEADING]


@pytest.fixture
def office_files(tmp_path: Path) -> dict[str, Path]:
    import docx

    word = docx.Document()
    word.add_heading("Quiet Offices", 0)
    word.add_paragraph("An introduction.")
    word.add_heading("1 Methods", 1)
    word.add_paragraph("We logged interruptions.")
    word.add_heading("1.1 Counters", 2)
    word.add_paragraph("The counters stored timestamps only.")
    files = {
        "docx": tmp_path / "quiet.docx",
        "html": tmp_path / "quiet.html",
        "md": tmp_path / "quiet.md",
    }
    word.save(files["docx"])
    files["html"].write_text(HTML, encoding="utf-8")
    files["md"].write_text(MARKDOWN, encoding="utf-8")
    return files


@pytest.mark.parametrize("kind", ["docx", "html", "md"])
def test_office_formats_keep_title_and_heading_levels(converter, office_files, kind):
    doc = converter.convert(office_files[kind], "0" * 64)
    assert doc.title == "Quiet Offices"
    assert doc.page_count is None and all(b.page is None for b in doc.blocks)
    heads = dict(sections(doc))
    assert heads["1.1 Counters"] > heads["1 Methods"]
    assert any("timestamps only" in b.text for b in doc.blocks)


def test_markdown_table_becomes_text(converter, office_files):
    doc = converter.convert(office_files["md"], "0" * 64)
    table = next(b for b in doc.blocks if b.kind is BlockKind.TABLE)
    assert "interruptions" in table.text and "11" in table.text


def test_plain_text_is_taken_as_it_is(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("First paragraph\nstill first.\n\nSecond ﬁnding.\n", encoding="utf-8")
    doc = PlainTextConverter().convert(path, "0" * 64)
    assert [b.text for b in doc.blocks] == ["First paragraph still first.", "Second finding."]
    assert doc.page_count is None and doc.title is None


def test_a_binary_file_named_txt_or_docx_fails_clearly(converter, tmp_path):
    txt = tmp_path / "x.txt"
    txt.write_bytes(b"\x00\x01binary")
    with pytest.raises(DocumentError, match="binary data"):
        PlainTextConverter().convert(txt, "0" * 64)
    fake = tmp_path / "x.docx"
    fake.write_text("not a zip")
    with pytest.raises(DocumentError, match="not a DOCX"):
        converter.convert(fake, "0" * 64)


def test_router_picks_by_suffix_and_refuses_unknown_types(converter, tmp_path):
    router = FormatRouter([converter, PlainTextConverter()])
    for name in ("a.pdf", "a.docx", "a.HTML", "a.md", "a.txt"):
        assert router.supports(Path(name)), name
    assert not router.supports(Path("a.epub"))
    odd = tmp_path / "a.epub"
    odd.write_text("x")
    with pytest.raises(DocumentError, match="unsupported file type"):
        router.convert(odd, "0" * 64)


@needs_tesseract
@pytest.mark.shared
def test_ocr_never_leaves_an_image_page_empty_and_says_so():
    doc = DoclingConverter(ocr="never").convert(PAPERS / "grobid_two_pages.pdf", "0" * 64)
    assert doc.ocr_pages == ()
    assert not any(b.page == 1 for b in doc.blocks)
    (warning,) = doc.warnings
    assert warning.kind is WarningKind.OCR and not doc.partial
    assert "page 1 has no text layer and OCR is off" in str(warning)


@needs_tesseract
@pytest.mark.shared
def test_ocr_always_reads_pages_that_have_text_too():
    doc = DoclingConverter(ocr="always", ocr_languages=("eng",)).convert(
        PAPERS / "grobid_submission_363.pdf", "0" * 64
    )
    assert doc.ocr_pages == (1,)
    assert "resonance fluorescence" in " ".join(b.text for b in doc.blocks).lower()


def test_tesseract_runs_on_one_thread_unless_the_user_chose(monkeypatch):
    # OpenMP threads that spin doubled the CPU of an OCR'd page (ADR 0030); Docling's
    # Tesseract CLI inherits this process's environment
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    pdf_pipeline_options(ocr="never", ocr_languages=("eng",), timeout_s=60, artifacts_path=None)
    assert "OMP_THREAD_LIMIT" not in os.environ  # no OCR, nothing to set
    pdf_pipeline_options(ocr="auto", ocr_languages=("eng",), timeout_s=60, artifacts_path=None)
    assert os.environ["OMP_THREAD_LIMIT"] == "1"
    monkeypatch.setenv("OMP_THREAD_LIMIT", "4")
    pdf_pipeline_options(ocr="auto", ocr_languages=("eng",), timeout_s=60, artifacts_path=None)
    assert os.environ["OMP_THREAD_LIMIT"] == "4"


@pytest.mark.shared
def test_a_document_over_the_time_limit_fails_alone_with_the_fix():
    # a limit no page can beat (a fast machine converts a page in well under 0.2 s)
    slow = DoclingConverter(timeout_s=1e-6)
    with pytest.raises(DocumentError, match=r"time limit of 1e-06 s.*timeout_s"):
        slow.convert(PAPERS / "grobid_MullenJSSv18i03.pdf", "0" * 64)


@pytest.mark.shared
def test_the_page_cap_converts_the_first_pages_and_says_so():
    doc = DoclingConverter(max_pages=2).convert(PAPERS / "grobid_0807.3577.pdf", "0" * 64)
    assert doc.page_count == 15
    assert {b.page for b in doc.blocks} <= {1, 2}
    (warning,) = doc.warnings
    assert warning.kind is WarningKind.PARTIAL and doc.partial
    assert str(warning).startswith("partial: only the first 2 of 15 pages")


def test_conversion_cache_never_converts_the_same_bytes_twice(tmp_path):
    calls = []

    class Counting(PlainTextConverter):
        def convert(self, path, sha256):
            calls.append(path)
            return super().convert(path, sha256)

    cache = CachingConverter(Counting(), tmp_path / "cache")
    first = tmp_path / "a.txt"
    first.write_text("Some text.\n\nMore text.")
    renamed = tmp_path / "b.txt"
    renamed.write_text(first.read_text())
    one = cache.convert(first, "ab" * 32)
    two = cache.convert(renamed, "ab" * 32)
    assert len(calls) == 1 and cache.hits == 1
    assert one.blocks == two.blocks and two.source_path == str(renamed)
    entry = next((tmp_path / "cache" / "conversions").rglob("*.json"))
    assert json.loads(entry.read_text())["converter"] == "plaintext-1"


def test_layout_choice_prefers_trained_weights_only_when_present(tmp_path):
    hub = tmp_path / "hf" / "hub"
    assert layout_choice("auto", None, hub) == ("rules", None)
    assert "weight-free" in describe_layout("auto", None, hub)
    weights = tmp_path / "artifacts" / "docling-project--docling-layout-heron"
    weights.mkdir(parents=True)
    assert layout_choice("auto", tmp_path / "artifacts", hub) == ("trained", weights)
    assert layout_choice("rules", tmp_path / "artifacts", hub) == ("rules", None)
    with pytest.raises(ConverterUnavailable, match="layout-heron"):
        layout_choice("trained", tmp_path / "nowhere", hub)


def test_weights_in_the_hugging_face_cache_are_given_to_docling_in_its_layout(
    tmp_path, monkeypatch
):
    from citeloom.adapters.conversion.docling_converter import TrainedArtifacts
    from citeloom.config import Environment

    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # read by the settings, given to Docling
    snapshot = (
        tmp_path / "hf" / "hub" / "models--docling-project--docling-layout-heron" / "snapshots"
    ) / "0123abcd"
    snapshot.mkdir(parents=True)
    (snapshot / "model.safetensors").write_bytes(b"weights")
    kind, found = layout_choice("auto", None, Environment().hf_hub)
    assert (kind, found) == ("trained", snapshot)
    artifacts = TrainedArtifacts(found)
    # Docling looks for <artifacts_path>/<repo with / as -->/ ...
    repo = artifacts.path / "docling-project--docling-layout-heron"
    assert (repo / "model.safetensors").read_bytes() == b"weights"
    # ... in a folder of links that goes with the object, leaving the weights where they are
    artifacts.cleanup()
    assert not artifacts.path.exists() and (snapshot / "model.safetensors").is_file()
    # ... and an artifacts_path given in the config is used as it is
    weights = tmp_path / "artifacts" / "docling-project--docling-layout-heron"
    weights.mkdir(parents=True)
    given = TrainedArtifacts(weights)
    assert given.path == tmp_path / "artifacts"
    given.cleanup()
    assert weights.is_dir()


TORCH_PROBE = """
import json, sys
from pathlib import Path
from citeloom.adapters.conversion.docling_converter import DoclingConverter
converter = DoclingConverter(layout="rules")
pdf = converter.convert(Path(sys.argv[1]), "0" * 64)
after_pdf = "torch" in sys.modules
markdown = converter.convert(Path(sys.argv[2]), "0" * 64)
print(json.dumps([pdf.ocr_pages, after_pdf, len(markdown.blocks) > 0]))
"""


@needs_tesseract
@pytest.mark.shared
def test_pdfs_convert_without_torch_and_other_formats_still_convert_after(tmp_path):
    # torch costs every ingest ~3 s of CPU and ~200 MB; the rules layout never runs it
    markdown = tmp_path / "note.md"
    markdown.write_text(MARKDOWN, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", TORCH_PROBE, str(PAPERS / "grobid_two_pages.pdf"), str(markdown)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ocr_pages, torch_loaded, markdown_converted = json.loads(out.strip().splitlines()[-1])
    assert ocr_pages == [1]  # the image-only page still went through Tesseract
    assert torch_loaded is False
    assert markdown_converted
