"""A BibLaTeX library end to end: shared papers ingested twice with real Docling, MiniLM and
Qdrant Edge, once against tests/data/papers.csl.json and once against its BibLaTeX twin that
pandoc writes at test time, give the same citekeys, match kinds, DOIs and printed pages."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import DATA, PAPERS, needs_pandoc, write_config

pytestmark = [pytest.mark.real, pytest.mark.shared, needs_pandoc]

LIBRARY = DATA / "papers.csl.json"
# each matched its own way: an arXiv id printed (its 2010 decoy is a @misc too), a title
# alone, a scan of a journal's pages 272-273, a DOI
PAPER_KEYS = {
    "grobid_1001._0908.0054.pdf": "rodriguezmontoya2009ultra",
    "grobid_Wang-paperAVE2008.pdf": "wang2008information",
    "grobid_ZFN-A-054-0304-0272.pdf": "hong1999exact",
    "grobid_test_Grobid_1_05452615.pdf": "iqbal2010new",
}
QUESTIONS = [
    "answer validation by information synthesis",
    "solitary wave solutions of fifth-order shallow water equations",
    "ultra light bosonic dark matter and the CMB",
    "requirement prioritization for market driven products",
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def twins(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("twins")
    bib = folder / "papers.bib"
    pandoc = ["pandoc", "-f", "csljson", "-t", "biblatex", str(LIBRARY), "-o", str(bib)]
    subprocess.run(pandoc, check=True)
    inbox = folder / "inbox"
    inbox.mkdir()
    for name in PAPER_KEYS:
        (inbox / name).symlink_to(PAPERS / name)
    extra = f'[project."bib"]\ncollection = "proj-bib"\nreferences = "{bib}"\n'
    config = write_config(folder, LIBRARY, extra=extra)
    reports = {}
    for project in ("papers", "bib"):  # the second reads the first's conversion cache
        code, out = run("ingest", str(inbox), "-p", project, "-c", str(config), "--json")
        assert code == 0, out
        reports[project] = {Path(d["path"]).name: d for d in json.loads(out)["documents"]}
    return {"config": config, "reports": reports}


def test_both_libraries_match_each_paper_to_its_entry_the_same_way(twins):
    fields = ("citekey", "match", "pages", "page_labels", "printed_pages")
    csl, bib = twins["reports"]["papers"], twins["reports"]["bib"]
    assert {name: doc["citekey"] for name, doc in bib.items()} == PAPER_KEYS
    for name in PAPER_KEYS:
        assert [bib[name][f] for f in fields] == [csl[name][f] for f in fields], name
    assert bib["grobid_1001._0908.0054.pdf"]["match"] == "arxiv"
    assert bib["grobid_test_Grobid_1_05452615.pdf"]["match"] == "doi"
    assert bib["grobid_Wang-paperAVE2008.pdf"]["match"] == "title"
    hong = bib["grobid_ZFN-A-054-0304-0272.pdf"]
    assert hong["page_labels"] in ("printed", "library"), hong  # the journal's pages


def test_passages_carry_the_same_dois_and_printed_page_labels(twins):
    def cited(project: str, question: str) -> list[tuple]:
        args = ["-p", project, "-c", str(twins["config"]), "--json", "-k", "5"]
        code, out = run("query", question, *args)
        assert code == 0, out
        return [
            (h["citekey"], h["doi"], h["page_label_start"], h["page_label_end"], h["label"])
            for h in json.loads(out)["results"]
        ]

    for question in QUESTIONS:
        from_bib = cited("bib", question)
        assert from_bib and from_bib == cited("papers", question), question
    dois = {hit[0]: hit[1] for q in QUESTIONS for hit in cited("bib", q)}
    assert dois["iqbal2010new"] == "10.1109/dsde.2010.49"
    labels = {hit[2] for q in QUESTIONS for hit in cited("bib", q) if hit[0] == "hong1999exact"}
    assert labels and labels <= {"272", "273"}
