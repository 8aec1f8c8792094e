"""How a finished Docling conversion is judged: by Docling's ``ConversionStatus`` and the
category of its errors, never by the wording of a message. Real Docling result types."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from citeloom.adapters.conversion.docling_converter import DoclingConverter
from citeloom.domain.errors import DocumentError
from citeloom.domain.models import WarningKind

pytestmark = pytest.mark.real
PDF = Path("paper.pdf")


def result(status: str, *errors: tuple[str, str], text: str | None = "Some text.") -> object:
    """A finished conversion as Docling reports it: status, errors (category, message) and
    the document (None for no output)."""
    from docling.datamodel.base_models import (
        ConversionStatus,
        DoclingComponentType,
        ErrorItem,
        FailureCategory,
    )
    from docling_core.types.doc import DocItemLabel, DoclingDocument

    document = None
    if text is not None:
        document = DoclingDocument(name="paper")
        if text:
            document.add_text(label=DocItemLabel.TEXT, text=text)
    items = [
        ErrorItem(
            component_type=DoclingComponentType.PIPELINE,
            module_name="test",
            error_message=message,
            category=FailureCategory(category),
        )
        for category, message in errors
    ]
    return SimpleNamespace(status=ConversionStatus(status), errors=items, document=document)


def check(done: object) -> tuple[list, object]:
    return DoclingConverter(timeout_s=5)._check(PDF, done)


def test_a_timeout_is_known_by_its_category_whatever_the_message_says():
    blocks, stopped = check(result("partial_success", ("timeout", "pages left undone")))
    assert [b.text for b in blocks] == ["Some text."]
    assert stopped.kind is WarningKind.TIMEOUT and stopped.partial
    assert "time limit of 5 s" in stopped.message and "timeout_s" in stopped.message


def test_a_message_about_time_is_not_a_timeout():
    _, stopped = check(result("partial_success", ("unknown", "page 3: runtime error")))
    assert stopped.kind is WarningKind.PARTIAL and stopped.message == "page 3: runtime error"


def test_a_timeout_before_any_text_fails_the_document_with_the_fix():
    with pytest.raises(DocumentError, match=r"time limit of 5 s before any text.*timeout_s"):
        check(result("partial_success", ("timeout", "document timeout exceeded"), text=""))


def test_a_failed_conversion_fails_the_document_with_docling_s_reasons():
    with pytest.raises(DocumentError, match=r"conversion failed \(unreadable xref\)"):
        check(result("failure", ("backend_failure", "unreadable xref"), text=None))


def test_a_successful_conversion_has_no_warning():
    blocks, stopped = check(result("success"))
    assert len(blocks) == 1 and stopped is None
