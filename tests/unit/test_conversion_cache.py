"""The conversion cache keeps typed warnings, never serves a partial conversion, and still
reads the entries an older citeloom wrote (format 1: warnings as plain wording)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from citeloom.adapters.conversion.cache import CACHE_FORMAT, CachingConverter, to_json
from citeloom.adapters.conversion.stored_text import CachedDocumentText
from citeloom.domain.models import (
    Block,
    BlockKind,
    ConversionWarning,
    ConvertedDocument,
    WarningKind,
)

SHA = "ab" * 32
NO_TEXT_LAYER = "page 2 has no text layer and OCR is off ([conversion] ocr)"


class Counting:
    """A converter that says how often it ran and returns what it is told to."""

    converter_id = "counting-1"

    def __init__(self, warnings: tuple[ConversionWarning, ...] = ()) -> None:
        self.calls = 0
        self.warnings = warnings

    def supports(self, path: Path) -> bool:
        return True

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        self.calls += 1
        blocks = (Block("Fresh text.", BlockKind.TEXT, 1),)
        return ConvertedDocument(
            str(path), sha256, None, 2, blocks, "counting-1", warnings=self.warnings
        )


def stored(cache: CachingConverter, **changes: object) -> Path:
    """An entry as an older citeloom wrote it: format 1, warnings as their wording."""
    document = ConvertedDocument(
        "old.pdf", SHA, "Old", 2, (Block("Old text.", BlockKind.TEXT, 1),), "counting-1"
    )
    data = {**to_json(document), "format": 1, **changes}
    path = cache.cached(SHA)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_warnings_say_what_they_are_about_and_which_cut_the_document_short():
    stopped = ConversionWarning(WarningKind.TIMEOUT, "conversion stopped after 5 s")
    capped = ConversionWarning(WarningKind.PARTIAL, "only the first 2 of 15 pages")
    dark = ConversionWarning(WarningKind.OCR, NO_TEXT_LAYER)
    assert stopped.partial and capped.partial and not dark.partial
    assert str(stopped) == "partial: conversion stopped after 5 s"
    assert str(dark) == NO_TEXT_LAYER
    document = ConvertedDocument("a.pdf", SHA, None, 1, (), "t", warnings=(dark,))
    assert not document.partial and replace(document, warnings=(dark, capped)).partial


def test_a_document_with_an_ocr_warning_is_stored_and_read_back_with_its_kind(tmp_path):
    inner = Counting((ConversionWarning(WarningKind.OCR, NO_TEXT_LAYER),))
    cache = CachingConverter(inner, tmp_path)
    first = cache.convert(tmp_path / "a.pdf", SHA)
    again = CachingConverter(inner, tmp_path).convert(tmp_path / "a.pdf", SHA)
    assert inner.calls == 1 and again == first
    assert again.warnings[0].kind is WarningKind.OCR
    entry = json.loads(cache.cached(SHA).read_text(encoding="utf-8"))
    assert entry["format"] == CACHE_FORMAT
    assert entry["warnings"] == [{"kind": "ocr", "message": NO_TEXT_LAYER}]


@pytest.mark.parametrize("kind", [WarningKind.TIMEOUT, WarningKind.PARTIAL])
def test_a_document_cut_short_is_never_stored(tmp_path, kind):
    inner = Counting((ConversionWarning(kind, "cut short"),))
    cache = CachingConverter(inner, tmp_path)
    cache.convert(tmp_path / "a.pdf", SHA)
    cache.convert(tmp_path / "a.pdf", SHA)
    assert inner.calls == 2 and not cache.cached(SHA).exists()


def test_an_entry_of_the_old_format_is_still_read(tmp_path):
    inner = Counting()
    cache = CachingConverter(inner, tmp_path)
    stored(cache, warnings=[NO_TEXT_LAYER])
    document = cache.convert(tmp_path / "renamed.pdf", SHA)
    assert inner.calls == 0 and cache.hits == 1
    assert document.blocks[0].text == "Old text." and document.source_path.endswith("renamed.pdf")
    assert document.warnings == (ConversionWarning(WarningKind.OCR, NO_TEXT_LAYER),)
    # and its text still serves quote checks, which never convert
    assert CachedDocumentText(cache, tmp_path).pages(SHA) == {1: "Old text."}


def test_an_old_entry_of_a_partial_conversion_is_converted_again(tmp_path):
    inner = Counting()
    cache = CachingConverter(inner, tmp_path)
    entry = stored(cache, warnings=["partial: conversion stopped after the time limit of 5 s"])
    document = cache.convert(tmp_path / "a.pdf", SHA)
    assert inner.calls == 1 and document.blocks[0].text == "Fresh text."
    rewritten = json.loads(entry.read_text(encoding="utf-8"))
    assert rewritten["format"] == CACHE_FORMAT and rewritten["warnings"] == []


def test_an_entry_of_an_unknown_format_is_converted_again(tmp_path):
    inner = Counting()
    cache = CachingConverter(inner, tmp_path)
    stored(cache, format=CACHE_FORMAT + 1)
    assert cache.convert(tmp_path / "a.pdf", SHA).blocks[0].text == "Fresh text."
    assert inner.calls == 1 and cache.hits == 0
