"""A glyph named only in its font's built-in encoding is read as the letters or sign it
names, as a reader sees it printed (and as poppler's pdftotext reads it), not as U+FFFD."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.glyph_font_pdf import glyph_named_pdf

pytestmark = pytest.mark.real

LINES = [
    "The file was final and efficient, the flow was fluent.",
    "Sizes of 8 × 45 sites, P ≤ 0.05, and the word qufiz.",
]


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return glyph_named_pdf(tmp_path_factory.mktemp("glyphs") / "glyph_names.pdf", LINES)


def test_pdftotext_reads_the_letters_from_the_glyph_names(pdf: Path) -> None:
    """The reference: poppler finds the letters in this font, so a conversion can."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: apt-get install poppler-utils")
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "\ufffd" not in text
    for word in ("file", "final", "efficient", "flow", "fluent", "8 × 45", "P ≤ 0.05", "qufiz"):
        assert word in text


def test_a_ligature_and_a_sign_named_only_by_the_font_are_read_as_printed(
    pdf: Path, converter
) -> None:
    text = " ".join(block.text for block in converter.convert(pdf, "0" * 64).blocks)
    assert "\ufffd" not in text
    assert "The file was final and efficient, the flow was fluent." in text
    # signs no word list mends, and a word no word list knows: only the glyph names give them
    assert "8 × 45" in text
    assert "P ≤ 0.05" in text
    assert "qufiz" in text
