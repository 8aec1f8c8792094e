"""What a Zotero library can do to citeloom (issue 28), end to end: a library built from
Zotero's own schema (tests/zotero_fixture.py) holding real PDFs of ../shared/corpus, ingested
with real Docling, MiniLM and Qdrant Edge through the CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from benchmarks.cover_page import with_cover

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


def rename_stored(zotero: ZoteroFixture, key: str, new_name: str) -> tuple[str, str]:
    """Zotero renaming a stored attachment's file (Zotero 7 does it by itself): the file in
    storage/<key>/ and the path in its database. The old and new paths."""
    folder = zotero.data_dir / "storage" / key
    [old] = list(folder.iterdir())
    new = old.rename(folder / new_name)
    with zotero.connect() as db:
        db.execute(
            "UPDATE itemAttachments SET path = ? WHERE path = ?",
            (f"storage:{new_name}", f"storage:{old.name}"),
        )
    return str(old), str(new)


def test_a_renamed_or_moved_attachment_stays_matched_to_its_item(tmp_path, cache_dir):
    """Case 3: after Zotero renamed a file, its paper was matched again by DOI or title, and
    one with neither printed was relabelled "no match" for good."""
    zotero = build_zotero(tmp_path)
    with zotero.edit() as w:  # its Zotero title is not what page 1 prints, and no DOI
        notes = w.item(
            "MULLER10", "journalArticle", title="Interference (draft)", citationKey="muller2010"
        )
        w.stored(notes, "PDFMUL10", PAPERS / "grobid_submission_355.pdf", "muller.pdf")
    config = zotero_config(tmp_path, zotero.data_dir, cache_dir)
    code, out = run("ingest", "-p", "thesis", "--config", str(config), "--json")
    assert code == 0, out
    before = {d["citekey"]: d for d in json.loads(out)["documents"] if d["citekey"]}
    assert before["muller2010"]["match"] == "zotero"

    renamed = dict(
        [
            rename_stored(zotero, "PDFMUL10", "Müller - 2010 - Interference.pdf"),
            rename_stored(zotero, "PDFHONG1", "Hong and Jung - 1999 - Exact Solitary-wave.pdf"),
        ]
    )
    moved = tmp_path / "moved" / "Wang and Neumann - 2008.pdf"  # a linked file moved
    moved.parent.mkdir()
    moved.symlink_to(PAPERS / "grobid_Wang-paperAVE2008.pdf")
    with zotero.connect() as db:
        db.execute(
            "UPDATE itemAttachments SET path = ? WHERE itemID = ?",
            (str(moved), zotero.item_ids["PDFWANG1"]),
        )
    renamed[str(PAPERS / "grobid_Wang-paperAVE2008.pdf")] = str(moved)

    code, out = run("ingest", "-p", "thesis", "--config", str(config), "--json", "--prune")
    assert code == 0, out
    report = json.loads(out)
    assert report["pruned"] == [] and report["relabelled"] == []
    assert report["totals"]["ingested"] == 0  # nothing converted or embedded again
    after = {d["citekey"]: d for d in report["documents"] if d["citekey"]}
    assert {k: (d["match"], d["status"]) for k, d in after.items()} == {
        k: ("zotero", "skipped") for k in before
    }
    for old, new in renamed.items():
        [doc] = [d for d in report["documents"] if d["path"] == new]
        assert doc["renamed_from"] == old
    code, out = run("inspect", "-p", "thesis", "--config", str(config), "--json")
    stored = {d["path"]: d for d in json.loads(out)["documents"] if d["kind"] == "paper"}
    assert set(renamed.values()) <= set(stored) and not set(renamed) & set(stored)
    assert stored[renamed[before["muller2010"]["path"]]]["citekey"] == "muller2010"


def test_collections_include_sub_collections_and_unknown_names_are_errors(tmp_path, cache_dir):
    """Case 8: --collection Thesis left out its sub-collections, names were case-sensitive,
    "Thesis/Chapter 2" as one name was merged with the path, an unknown name answered "no
    passages found"; a keyless item and a key Better BibTeX stores differently went unsaid."""
    zotero = build_zotero(tmp_path)  # Thesis holds wang, Thesis > Chapter 2 holds bosons
    with zotero.edit() as w:  # a top-level collection whose name has a slash, holding hong
        literal = w.collection("Thesis/Chapter 2", "COLLSLSH")
        w.db.execute(
            "INSERT INTO collectionItems VALUES (?, ?, 0)", (literal, zotero.item_ids["HONGSOL9"])
        )
    bbt = sqlite3.connect(zotero.data_dir / "better-bibtex.sqlite")
    with bbt:  # Better BibTeX holds another key for the item whose citationKey field has one
        bbt.execute(
            "INSERT INTO citationkey VALUES (?, 'BOSONS01', 1, 'rodriguez2009ultralight', 0)",
            (zotero.item_ids["BOSONS01"],),
        )
    bbt.close()
    config = zotero_config(tmp_path, zotero.data_dir, cache_dir)
    code, out = run("ingest", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert any("NOKEY001 (A draft without a key)" in line for line in warnings)
    assert any(
        "Zotero item BOSONS01" in line
        and "says rodriguezmontoya2009ultra, Better BibTeX's key store says rodriguez2009ultralight"
        in line
        for line in warnings
    )

    def citekeys(*options: str) -> set[str]:
        return {r["citekey"] for r in results(config, "the", "--per-doc", "0", *options)}

    assert citekeys("--collection", "thesis") == {
        "wang2008information",
        "rodriguezmontoya2009ultra",
    }
    assert citekeys("--collection", "THESIS/chapter 2") == {"rodriguezmontoya2009ultra"}
    assert citekeys("--collection", "Thesis\\/Chapter 2") == {"hong1999exact"}
    assert citekeys("--tag", "SOLITONS") == {"hong1999exact"}
    for option, name, known in (
        ("--collection", "Thesis/Chapter 3", '"Thesis", "Thesis/Chapter 2", "Thesis\\/Chapter 2"'),
        ("--tag", "to read", '"solitons", "to-read"'),
    ):
        code, out = run("query", "x", "-p", "thesis", "--config", str(config), option, name)
        assert code == 2 and known in out and "Traceback" not in out, out

    code, out = run("validate", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    assert "warn citation keys: 1 Zotero entry has no citation key" in out
    assert "warn citation keys: Zotero item BOSONS01" in out


def test_loose_pdfs_are_matched_by_identifiers_anywhere_on_their_first_pages(tmp_path, cache_dir):
    """Case 9: a DOI printed only in the publisher's head, a bare old-style arXiv id while
    the library holds the arXiv DOI, and a cover page before the title page each left a paper
    the library knows as "no reference match"."""
    zotero = build_zotero(tmp_path)
    with zotero.edit() as w:  # entries without attachments: the PDFs are in a folder
        for key, citekey, title, doi in (
            (
                "TULLY010",
                "tully2010patient",
                "Patient Experiences of Structured Heart Failure Programmes",
                "10.1155/2010/157939",
            ),
            (
                "SUNDS014",
                "sundstrom2014stressful",
                "Stressful life events are not associated with the development of dementia",
                "10.1017/S1041610213001804",
            ),
            (
                "ZENG1994",
                "zeng1994heavy",
                "Heavy Mesons In A Relativistic Model",
                "10.48550/arXiv.hep-ph/9412269",
            ),
            (
                "CHANG006",
                "chang2006bigtable",
                "Bigtable: A Distributed Storage System for Structured Data",
                "",
            ),
        ):
            fields = {"title": title, "citationKey": citekey} | ({"DOI": doi} if doi else {})
            w.authors(w.item(key, "journalArticle", **fields), (citekey[:5].title(), "A."))
    folder = tmp_path / "inbox"
    folder.mkdir()
    paginated = PAPERS.parent / "paginated"
    for name in ("hindawi_rrp2010_157939.pdf", "intpsychogeriatr2013_life_events.pdf"):
        (folder / name).symlink_to(paginated / name)
    (folder / "zeng.pdf").symlink_to(paginated / "cebaf_hep-ph9412269.pdf")
    with_cover(paginated / "bigtable_osdi2006.pdf", folder / "bigtable behind a cover.pdf")
    with_cover(PAPERS / "grobid_Wang-paperAVE2008.pdf", folder / "wang behind a cover.pdf")
    config = zotero_config(tmp_path, zotero.data_dir, cache_dir)
    code, out = run("ingest", str(folder), "-p", "thesis", "--config", str(config), "--json")
    assert code == 0, out
    matched = {
        Path(d["path"]).name: (d["citekey"], d["match"]) for d in json.loads(out)["documents"]
    }
    assert matched == {
        "hindawi_rrp2010_157939.pdf": ("tully2010patient", "doi"),  # DOI in the head only
        "intpsychogeriatr2013_life_events.pdf": ("sundstrom2014stressful", "doi"),
        "zeng.pdf": ("zeng1994heavy", "arxiv"),  # "hep-ph/9412269 09 Dec 94", bare
        "bigtable behind a cover.pdf": ("chang2006bigtable", "title"),  # page 2's title
        "wang behind a cover.pdf": ("wang2008information", "title"),
    }


def test_a_library_range_the_pdf_does_not_print_is_cited_and_both_are_named(tmp_path, cache_dir):
    """Case 10: the library said pp. 205-218, the PDF (another printing) printed 1-14, and
    the printed numbers won silently."""
    zotero = build_zotero(tmp_path)
    paginated = PAPERS.parent / "paginated"
    with zotero.edit() as w:
        bigtable = w.item(
            "CHANG006",
            "journalArticle",
            title="Bigtable: A Distributed Storage System for Structured Data",
            citationKey="chang2006bigtable",
            pages="205-218",
        )
        w.stored(bigtable, "PDFBIGT1", paginated / "bigtable_osdi2006.pdf", "bigtable.pdf")
        zeng = w.item(  # a two-up preprint scan, and no page range in the library
            "ZENG1994",
            "journalArticle",
            title="Heavy Mesons In A Relativistic Model",
            citationKey="zeng1994heavy",
        )
        w.stored(zeng, "PDFZENG1", paginated / "cebaf_hep-ph9412269.pdf", "zeng.pdf")
    config = zotero_config(tmp_path, zotero.data_dir, cache_dir)
    code, out = run("ingest", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    said = "the library says pp. 205-218, the PDF prints pp. 1-14: cited as pp. 205-218"
    assert any(line.startswith("warning: ") and said in line for line in out.splitlines())
    assert "bigtable.pdf  [@chang2006bigtable] (zotero)  14 pages, printed pp. 205-218" in out

    def stored() -> dict[str, dict]:
        code, out = run("inspect", "-p", "thesis", "--config", str(config), "--json")
        assert code == 0, out
        return {d["citekey"]: d for d in json.loads(out)["documents"] if d["kind"] == "paper"}

    assert (
        stored()["chang2006bigtable"]["page_labels"],
        stored()["chang2006bigtable"]["printed_pages"],
    ) == ("library", "205-218")
    code, out = run("inspect", "-p", "thesis", "--config", str(config))
    assert f"pages: {said}" in out
    code, out = run("validate", "-p", "thesis", "--config", str(config))
    assert code == 0 and f"chang2006bigtable: {said}" in out, out
    # equation numbers at the page edges are not page numbers: the preprint prints its pages
    # two to a sheet after an unnumbered cover (PDF p. 3 shows pages 3 and 4, p. 18 33-34)
    zeng_doc = stored()["zeng1994heavy"]
    assert (zeng_doc["page_labels"], zeng_doc["printed_pages"]) == ("printed", "1-34")
    [hit] = results(
        config,
        '"constructed this model for heavy mesons"',
        "--citekey",
        "zeng1994heavy",
        "--top-k",
        "1",
    )
    two_up = {page: f"{2 * page - 3}-{2 * page - 2}" for page in range(3, 19)}  # 3-4 ... 33-34
    assert hit["page_start"] >= 17 and hit["page_label_start"] == two_up[hit["page_start"]]
    assert hit["page_label_end"] == two_up[hit["page_end"]]

    set_field(zotero, "CHANG006", "extra", "citeloom-pages: printed")  # the entry chooses
    code, out = run("ingest", "-p", "thesis", "--config", str(config))
    assert code == 0, out
    assert said not in out and "bigtable.pdf  [@chang2006bigtable] (zotero)  14 pages" in out
    chosen = stored()["chang2006bigtable"]
    assert (chosen["page_labels"], chosen["printed_pages"]) == ("printed", "1-14")
    assert "cited as pp. 1-14, as the entry chooses" in (chosen["pages_disagree"] or "")
