"""`citeloom validate`'s checks over fakes: each failure names the fix and its exit code."""

from __future__ import annotations

from citeloom.domain.errors import IndexUnavailable
from citeloom.domain.models import Reference
from citeloom.services.ingest import IngestService
from citeloom.services.validate import ProjectComponents, ValidationCheck, validate_project
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)


def parts(index=None, max_tokens=254, embed_model="fake/bow-16", chunker=None, metadata=None):
    def broken_index():
        raise IndexUnavailable("Qdrant at http://lab:6333 is unavailable (connection refused).")

    return ProjectComponents(
        collection="c",
        embed_model=embed_model,
        max_tokens=max_tokens,
        metadata=metadata or FakeMetadata,
        embedder=FakeEmbedder,
        chunker=lambda emb: chunker or FakeChunker(),
        index=(lambda: index) if index is not None else broken_index,
    )


def by_name(checks: list[ValidationCheck]) -> dict[str, ValidationCheck]:
    return {c.name: c for c in checks}


def test_a_healthy_project_passes_every_check():
    checks = by_name(validate_project("p", parts(index=FakeIndex())))
    assert all(c.ok for c in checks.values()), checks
    assert checks["collection model"].detail == "collection 'c' not created yet"


def test_chunks_larger_than_the_model_window_fail_with_the_limit():
    check = by_name(validate_project("p", parts(index=FakeIndex(), max_tokens=400)))["chunk size"]
    assert not check.ok and check.fix == "set [chunking] max_tokens = 254 or less"


def test_a_chunker_with_another_tokenizer_fails():
    class OtherChunker(FakeChunker):
        tokenizer_id = "bert-base-cased"

    check = by_name(validate_project("p", parts(index=FakeIndex(), chunker=OtherChunker())))
    assert not check["chunking tokenizer"].ok
    assert "bert-base-cased" in check["chunking tokenizer"].detail


def test_an_unreachable_index_exits_3_and_a_model_mismatch_exits_4():
    down = by_name(validate_project("p", parts()))["index"]
    assert not down.ok and down.exit_code == 3 and "connection refused" in down.detail

    index = FakeIndex()
    index.ensure_collection("c", "fastembed/other-model", 16, project="p")
    index.replace_document("c", "d", "x.pdf", [])
    mismatch = by_name(validate_project("p", parts(index=index)))["collection model"]
    assert not mismatch.ok and mismatch.exit_code == 4
    assert "fastembed/other-model" in mismatch.detail and "fake/bow-16" in mismatch.detail


def test_entries_whose_id_is_not_their_citation_key_are_named_with_the_export_to_use():
    refs = [
        Reference("smith2020", "T", entry_id="http://zotero.org/users/1/items/ABCD"),
        Reference("lee2019", "U", entry_id="lee2019"),
    ]
    check = by_name(
        validate_project("p", parts(index=FakeIndex(), metadata=lambda: FakeMetadata(refs)))
    )["citation keys"]
    assert check.ok and check.warning
    assert "1 of 2 entries" in check.detail and "smith2020" in check.detail
    assert "Better CSL JSON" in (check.fix or "")


def test_validate_says_which_rule_labelled_the_stored_pages(tmp_path):
    index = FakeIndex()
    (tmp_path / "smith2020.pdf").write_text("TITLE T\n# 1 Intro\nText one.\fText two.")
    IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata([Reference("smith2020", "T", page="10-11")]),
        embedder=FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
    ).run([tmp_path])
    check = by_name(validate_project("p", parts(index=index)))["page labels"]
    assert check.ok and not check.warning
    assert check.detail == "1 paged document labelled by: 1 library"
