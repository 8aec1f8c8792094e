"""A project defined by a Zotero data directory alone, end to end: real Docling, embedder and
Qdrant Edge on real PDFs attached in a Zotero library built from Zotero's own schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.zotero_fixture import ZoteroFixture, build_zotero

pytestmark = [pytest.mark.real, pytest.mark.shared]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def zotero_config(folder: Path, data_dir: Path, cache: Path, extra: str = "") -> Path:
    config = folder / "citeloom.toml"
    config.write_text(
        f"""
[paths]
audit_dir = "var/audit"
index_dir = "var/qdrant"
cache_dir = "{cache}"

[project."thesis"]
collection = "thesis"
zotero = "{data_dir}"
{extra}
""",
        encoding="utf-8",
    )
    return config


@pytest.fixture(scope="module")
def library(tmp_path_factory, cache_dir) -> dict:
    folder = tmp_path_factory.mktemp("zotero-project")
    zotero = build_zotero(folder)
    config = zotero_config(folder, zotero.data_dir, cache_dir)
    code, out = run("ingest", "-p", "thesis", "--config", str(config), "--json")
    assert code == 0, out
    return {"zotero": zotero, "config": config, "report": json.loads(out)}


def query(library: dict, text: str, *options: str) -> list[dict]:
    code, out = run(
        "query",
        text,
        "-p",
        "thesis",
        "--config",
        str(library["config"]),
        "--json",
        "--local",
        "--per-doc",
        "0",
        *options,
    )
    assert code == 0, out
    return json.loads(out)["results"]


def test_every_attachment_is_matched_exactly(library):
    zotero: ZoteroFixture = library["zotero"]
    docs = {d["path"]: d for d in library["report"]["documents"]}
    assert set(docs) == set(zotero.attachments)
    for path, citekey in zotero.attachments.items():
        assert docs[path]["status"] == "ingested", docs[path]
        if citekey is None:  # reported, never guessed
            assert (docs[path]["citekey"], docs[path]["match"]) == (None, None)
        else:
            assert (docs[path]["citekey"], docs[path]["match"]) == (citekey, "zotero")
    audit = Path(library["report"]["audit"]).read_text().splitlines()
    keyless = next(
        json.loads(line) for line in audit if '"document"' in line and "draft.pdf" in line
    )
    assert any("NOKEY001 has no citation key" in w for w in keyless["warnings"])


def test_what_is_not_ingested_is_reported_with_the_reason(library):
    skipped = {a["item_key"]: a["skipped"] for a in library["report"]["library_skipped"]}
    assert set(skipped) == {"HTMLSNAP", "PDFMISS1"}
    assert "not a PDF" in skipped["HTMLSNAP"] and "missing" in skipped["PDFMISS1"]


def test_collections_and_tags_filter_a_query(library):
    in_chapter = query(library, "dark matter scalar field", "--collection", "Thesis/Chapter 2")
    assert in_chapter and {r["citekey"] for r in in_chapter} == {"rodriguezmontoya2009ultra"}
    tagged = query(library, "wave equation solutions", "--tag", "solitons")
    assert tagged and {r["citekey"] for r in tagged} == {"hong1999exact"}
    code, out = run(
        "query", "wave", "-p", "thesis", "--config", str(library["config"]), "--collection", "x"
    )
    assert code == 2 and '"Thesis", "Thesis/Chapter 2"' in out  # names the collections there are


def test_annotations_are_searchable_notes_labelled_as_annotations(library):
    assert library["report"]["annotations"] == {"stored": 2, "removed": 0, "total": 2}
    results = query(library, "the fifth-order equation needs a check")
    note = next(r for r in results if r["kind"] == "note")
    assert note["label"] == "[annotation on @hong1999exact, p. 273]"
    assert note["citekey"] == "hong1999exact"


def attachments_in_zotero(zotero: ZoteroFixture) -> dict[str, tuple[str, str]]:
    """Each PDF's (attachment key, entry key), as Zotero's database holds them, by the path
    the attachment's file is at."""
    with zotero.connect() as db:
        rows = db.execute(
            "SELECT a.key, p.key, ia.linkMode, ia.path FROM itemAttachments ia "
            "JOIN items a ON a.itemID = ia.itemID JOIN items p ON p.itemID = ia.parentItemID"
        ).fetchall()
    out = {}
    for attachment, entry, link_mode, stored in rows:
        storage = zotero.data_dir / "storage" / attachment / stored.removeprefix("storage:")
        path = str(storage) if link_mode == 0 else stored  # 0: a stored file, else linked
        out[path] = (attachment, entry)
    return out


def test_results_link_back_to_their_entry_and_pdf_page_in_zotero(library):
    keys = attachments_in_zotero(library["zotero"])
    results = [r for r in query(library, "dark matter scalar field") if r["kind"] == "paper"]
    assert results
    for result in results:
        attachment, entry = keys[result["source"]]
        assert result["zotero"] == {
            "item_key": entry,
            "attachment_key": attachment,
            "library": "library",
            # Zotero's reader opens page index page - 1: the PDF page, not the printed label
            "open_pdf": f"zotero://open-pdf/library/items/{attachment}?page={result['page_start']}",
            "select": f"zotero://select/library/items/{entry}",
        }
    config = str(library["config"])
    code, out = run("answer", "what does the scalar field behave as", "-p", "thesis",
                    "--config", config, "--json", "--local")  # fmt: skip
    assert code == 0, out
    answer = json.loads(out)
    for cited in answer["citations"] or answer["leads"]:
        page = cited.get("page", cited.get("page_start"))
        assert cited["zotero"]["open_pdf"].endswith(f"?page={page}")
    code, text = run("query", "dark matter scalar field", "-p", "thesis", "--config", config,
                     "--local")  # fmt: skip
    assert code == 0 and f"in Zotero: {results[0]['zotero']['open_pdf']}" in text


def test_an_index_stored_before_links_answers_without_them_until_the_next_ingest(library):
    """Documents stored before citeloom kept a PDF's library address (issue 28's payloads)
    answer with ``zotero: null``, no error; the next ingest relabels them with their links
    from the cached conversions, nothing converted or embedded again."""
    from citeloom.bootstrap import index
    from citeloom.config import load_settings
    from citeloom.ports import SearchFilter

    settings = load_settings(library["config"])
    with index(settings) as idx:  # as issue 28 stored them: no link_library, an older library
        chunks = idx.chunks("thesis", SearchFilter(project="thesis"), 10_000)
        older: dict[str, dict] = {}
        for payload in chunks.values():
            # merged into the stored object, so emptied rather than taken out: read as absent
            zotero = {**payload["zotero"], "link_library": None, "library": "before-links"}
            older[payload["doc_id"]] = zotero
        for doc_id, zotero in older.items():
            idx.relabel_document("thesis", doc_id, {"zotero": zotero})
    results = query(library, "dark matter scalar field")
    assert results and all(r["zotero"] is None for r in results)
    code, out = run("ingest", "-p", "thesis", "--config", str(library["config"]), "--json")
    assert code == 0, out
    assert json.loads(out)["totals"]["ingested"] == 0  # relabelled, not embedded again
    papers = [r for r in query(library, "dark matter scalar field") if r["kind"] == "paper"]
    assert papers and all(r["zotero"]["library"] == "library" for r in papers)


def test_changes_in_zotero_reach_the_index_and_prune_removes_what_left(library):
    zotero: ZoteroFixture = library["zotero"]
    config = str(library["config"])
    with zotero.connect() as db:  # the hong PDF and the first annotation leave the library
        db.execute("DELETE FROM itemAttachments WHERE path = 'storage:hong.pdf'")
        db.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (zotero.item_ids["ANNOT001"],))
    code, out = run("ingest", "-p", "thesis", "--config", config, "--json", "--prune")
    assert code == 0, out
    report = json.loads(out)
    assert report["totals"]["ingested"] == 0  # nothing converted or embedded again
    assert [Path(p).name for p in report["pruned"]] == ["hong.pdf"]
    # the annotation on the pruned PDF goes with it, and the deleted one too
    assert report["annotations"] == {"stored": 0, "removed": 2, "total": 0}
    assert (
        query(library, "the fifth-order equation needs a check", "--citekey", "hong1999exact") == []
    )


def test_validate_reports_keyless_entries_and_disagreements_with_the_export(tmp_path, cache_dir):
    zotero = build_zotero(tmp_path)
    export = tmp_path / "library.json"
    export.write_text(
        json.dumps(
            [
                {
                    "id": "hong1999exact",
                    "title": "Exact Solitary-wave Solutions for the General Fifth-order "
                    "Shallow Water Wave Equation",
                    "issued": {"date-parts": [[2000]]},
                    "author": [{"family": "Hong", "given": "W."}],
                }
            ]
        )
    )
    config = zotero_config(
        tmp_path, zotero.data_dir, cache_dir, extra=f'references_json = "{export}"'
    )
    code, out = run("validate", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    assert "references: 4 Zotero entries" in out
    assert "NOKEY001 (A draft without a key)" in out
    assert "hong1999exact: year 1999 / 2000 (Zotero / library.json)" in out
