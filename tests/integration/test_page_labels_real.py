"""Printed page labels end to end on real PDFs: real Docling, MiniLM and Qdrant Edge."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import CORPUS, PAPERS, needs_pandoc, write_config

pytestmark = [pytest.mark.real, pytest.mark.shared]

PAGINATED = CORPUS / "paginated"
# as a Zotero library holds them: the article's journal range; a working-notes paper that
# prints no page numbers, given a range by hand
LIBRARY = [
    {
        "id": "huang2010iron",
        "citation-key": "huang2010iron",
        "type": "article-journal",
        "title": "Iron deficiency anaemia can be improved after eradication of Helicobacter pylori",
        "container-title": "Postgraduate Medical Journal",
        "page": "272-278",
        "issued": {"date-parts": [[2010]]},
        "author": [{"family": "Huang", "given": "Xiaolu"}],
    },
    {
        "id": "wang2008information",
        "citation-key": "wang2008information",
        "type": "paper-conference",
        "title": "Information Synthesis for Answer Validation",
        "page": "35-39",
        "issued": {"date-parts": [[2008]]},
        "author": [{"family": "Wang", "given": "Rui"}],
    },
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("labels")
    library = folder / "library.json"
    library.write_text(json.dumps(LIBRARY), encoding="utf-8")
    inbox = folder / "inbox"
    inbox.mkdir()
    (inbox / "huang2010iron.pdf").symlink_to(PAGINATED / "postgradmedj2010_86_272.pdf")
    (inbox / "wang2008information.pdf").symlink_to(PAPERS / "grobid_Wang-paperAVE2008.pdf")
    config = write_config(folder, library)
    code, out = run("ingest", str(inbox), "-p", "papers", "-c", str(config), "--json")
    assert code == 0, out
    return {"config": config, "library": library, "inbox": inbox, "report": json.loads(out)}


def query(project: dict, text: str, citekey: str) -> list[dict]:
    args = ["-p", "papers", "-c", str(project["config"]), "--citekey", citekey, "--json"]
    code, out = run("query", text, *args)
    assert code == 0, out
    return json.loads(out)["results"]


def test_ingest_records_which_rule_gave_the_labels(project):
    docs = {Path(d["path"]).stem: d for d in project["report"]["documents"]}
    assert (docs["huang2010iron"]["page_labels"], docs["huang2010iron"]["printed_pages"]) == (
        "printed",
        "272-278",
    )
    # no page number printed on any page: the library's range numbers them
    assert (
        docs["wang2008information"]["page_labels"],
        docs["wang2008information"]["printed_pages"],
    ) == (
        "library",
        "35-39",
    )
    code, out = run("inspect", "-p", "papers", "-c", str(project["config"]))
    assert code == 0 and "printed pp. 272-278 (labels: printed)" in out
    code, out = run("validate", "-p", "papers", "-c", str(project["config"]))
    assert "page labels: 2 paged documents labelled by: 1 library, 1 printed" in out


def test_a_passage_cites_the_printed_page_and_keeps_the_pdf_page(project):
    hits = query(project, "meta-analysis of eradication therapy and haemoglobin", "huang2010iron")
    for hit in hits:
        assert hit["page_label_start"] == str(271 + hit["page_start"])
        where = "p." if hit["page_end"] == hit["page_start"] else "pp."
        assert hit["label"].startswith(f"[@huang2010iron, {where} {hit['page_label_start']}")


def test_a_changed_page_range_in_the_library_relabels_without_re_embedding(project):
    before = {h["chunk_id"]: h for h in query(project, "answer validation", "wang2008information")}
    assert all(h["page_label_source"] == "library" for h in before.values())
    changed = [
        {**entry, "page": "101-105"} if entry["id"] == "wang2008information" else entry
        for entry in LIBRARY
    ]
    project["library"].write_text(json.dumps(changed), encoding="utf-8")
    code, out = run("ingest", str(project["inbox"]), "-p", "papers", "-c", str(project["config"]))
    assert code == 0, out
    assert "0 ingested, 2 skipped" in out  # nothing converted into new chunks or embedded
    after = {h["chunk_id"]: h for h in query(project, "answer validation", "wang2008information")}
    assert set(after) == set(before)  # the same chunks: ids are made of PDF pages
    for chunk, hit in after.items():
        assert hit["page_label_start"] == str(100 + before[chunk]["page_start"])
        assert hit["score"] == pytest.approx(before[chunk]["score"], abs=1e-4)


@needs_pandoc
def test_pandoc_renders_the_labels_citeloom_prints_with_no_warning(project, tmp_path):
    """A draft made of citeloom's own output goes through pandoc's citeproc as a user's would:
    every key resolves, and the page pandoc prints is the journal's."""
    args = ["-p", "papers", "-c", str(project["config"]), "--citekey", "huang2010iron"]
    code, markdown = run(
        "query", "eradication therapy raised haemoglobin", *args, "--format", "markdown"
    )
    assert code == 0, markdown
    hits = query(project, "eradication therapy raised haemoglobin", "huang2010iron")
    draft = tmp_path / "draft.md"
    draft.write_text(markdown, encoding="utf-8")
    result = subprocess.run(
        ["pandoc", "--citeproc", f"--bibliography={project['library']}", "-t", "plain", str(draft)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert f"(Huang 2010, {hits[0]['page_label_start']}" in result.stdout
    assert "(Huang 2010, 1)" not in result.stdout  # never the PDF page
