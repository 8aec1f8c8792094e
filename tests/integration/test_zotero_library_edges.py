"""What a Zotero library can do to citeloom (issue 28), end to end: a library built from
Zotero's own schema (tests/zotero_fixture.py) holding real PDFs of ../shared/corpus, ingested
with real Docling, MiniLM and Qdrant Edge through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import PAPERS
from tests.integration.test_zotero_ingest import run, zotero_config
from tests.zotero_fixture import FIELDS, ZoteroFixture, build_zotero

pytestmark = [pytest.mark.real, pytest.mark.shared]


def set_field(zotero: ZoteroFixture, item: str, name: str, value: str) -> None:
    """The user editing one field of an item in Zotero."""
    with zotero.connect() as db:
        db.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
        (value_id,) = db.execute(
            "SELECT valueID FROM itemDataValues WHERE value = ?", (value,)
        ).fetchone()
        db.execute(
            "INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
            (zotero.item_ids[item], FIELDS[name], value_id),
        )


def results(config: Path, text: str, *options: str) -> list[dict]:
    code, out = run(
        "query", text, "-p", "thesis", "--config", str(config), "--json", "--local", *options
    )
    assert code == 0, out
    return json.loads(out)["results"]


def test_two_items_claiming_one_key_are_cited_by_their_items_until_fixed(tmp_path, cache_dir):
    """Case 2: the other paper was cited as [@ardel2023marsh, p. 1] and validate passed."""
    zotero = build_zotero(tmp_path)
    with zotero.edit() as w:  # a second item with BOSONS01's citationKey
        twin = w.item(
            "TWINKEY1",
            "journalArticle",
            title="Magneto-photoluminescence of a two-dimensional electron gas",
            citationKey="rodriguezmontoya2009ultra",
        )
        w.stored(twin, "PDFTWIN1", PAPERS / "grobid_submission_161.pdf", "twin.pdf")
    config = zotero_config(tmp_path, zotero.data_dir, cache_dir)

    code, out = run("ingest", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    warning = next(line for line in out.splitlines() if line.startswith("warning: citekey"))
    assert "rodriguezmontoya2009ultra is claimed by 2 entries" in warning
    assert "Zotero item BOSONS01" in warning and "Zotero item TWINKEY1" in warning
    assert warning.count("(citationKey field)") == 2  # where each one's key is written
    # neither paper is cited by the key: each by its own Zotero item
    for text, item in (("two-dimensional electron gas", "TWINKEY1"), ("dark matter", "BOSONS01")):
        found = [r for r in results(config, text) if r["kind"] == "paper"]
        own = [r for r in found if r["citekey"] is None and item in r["label"]]
        assert own, found
        assert own[0]["label"].startswith(f"[no citekey: Zotero item {item}, p. ")
    assert not results(config, "dark matter", "--citekey", "rodriguezmontoya2009ultra")

    code, out = run("validate", "-p", "thesis", "--config", str(config))
    assert code == 2, out
    assert "FAIL citation keys: citekey rodriguezmontoya2009ultra is claimed by 2 entries" in out
    code, out = run("inspect", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    assert "no citekey: Zotero item TWINKEY1" in out
    assert "TWINKEY1 shares its citation key rodriguezmontoya2009ultra with Zotero item" in out

    set_field(zotero, "TWINKEY1", "citationKey", "pusep2010magneto")  # the user fixes it
    code, out = run("ingest", "-p", "thesis", "--config", str(config), "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["totals"]["ingested"] == 0  # relabelled in place, nothing embedded again
    relabelled = {(r["old"], r["new"], r["match"]) for r in report["relabelled"]}
    assert relabelled == {
        (None, "rodriguezmontoya2009ultra", "zotero"),
        (None, "pusep2010magneto", "zotero"),
    }
    assert not report["library_problems"] or all(
        p["kind"] != "shared-key" for p in report["library_problems"]
    )
    labels = {r["label"] for r in results(config, "two-dimensional electron gas")}
    assert any(label.startswith("[@pusep2010magneto, p. ") for label in labels)
