"""Versions, supersession and retractions where a paper is cited: real Docling, MiniLM and
Qdrant Edge, through the CLI, HTTP and MCP (issue 23).

The library is the example project's, with the preprint of ``ardel2023marsh`` added
(EarthArXiv, the same title and authors; its PDF is the article's with one byte more, so the
two versions hold the same text), and a relations file that retracts ``lindqvist2021quiet``.
A second library holds a real arXiv paper of the shared corpus under two titles.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from citeloom.services.usecases.wire import PassageOut, RelationFlags
from tests.conftest import CITELOOM, EXAMPLES, PAPERS, ROOT

pytestmark = pytest.mark.real

QUESTION = "how fast do restored salt marshes accrete sediment"
RETRACTION = "retracted by the workshop in 2024: the interruption logs were incomplete"
FLAGS = set(RelationFlags.model_fields)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def library_with_a_preprint(folder: Path) -> Path:
    entries = json.loads((ROOT / "references" / "example.json").read_text(encoding="utf-8"))
    article = next(e for e in entries if e["id"] == "ardel2023marsh")
    preprint = {k: v for k, v in article.items() if k not in ("DOI", "page", "container-title")}
    preprint.update(
        id="ardel2022preprint",
        type="article",
        publisher="EarthArXiv",
        issued={"date-parts": [[2022]]},
    )
    preprint["citation-key"] = "ardel2022preprint"
    path = folder / "library.json"
    path.write_text(json.dumps([*entries, preprint], indent=1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("relations")
    papers = folder / "papers"
    papers.mkdir()
    for pdf in EXAMPLES.glob("*.pdf"):
        shutil.copy(pdf, papers / pdf.name)
    copy = papers / "ardel2022preprint.pdf"  # named after its citekey
    copy.write_bytes((EXAMPLES / "ardel2023_restored_marshes.pdf").read_bytes() + b"\n% v1\n")
    library = library_with_a_preprint(folder)
    (folder / "relations.toml").write_text(
        f'[[retracted]]\ncitekey = "lindqvist2021quiet"\nreason = "{RETRACTION}"\n',
        encoding="utf-8",
    )
    config = folder / "citeloom.toml"
    config.write_text(
        f"""
[paths]
audit_dir = "var/audit"
index_dir = "var/qdrant"
cache_dir = "var/cache"

[project."papers"]
collection = "proj-papers"
references_json = "{library}"
relations = "relations.toml"
""",
        encoding="utf-8",
    )
    code, out = run("ingest", str(papers), "-p", "papers", "-c", str(config))
    assert code == 0, out
    assert "relations: 2 certain (citeloom inspect --relations -p papers)" in out
    return config


def test_inspect_relations_lists_each_relation_with_its_evidence(project):
    code, out = run("inspect", "--relations", "-p", "papers", "-c", str(project))
    assert code == 0, out
    assert "certain   @ardel2022preprint version_of @ardel2023marsh  (library)" in out
    assert "@ardel2022preprint is a preprint (publisher EarthArXiv)" in out
    assert "certain   @lindqvist2021quiet retracted  (file)" in out and RETRACTION in out
    data = json.loads(run("inspect", "--relations", "-p", "papers", "-c", str(project),
                          "--json")[1])  # fmt: skip
    assert (data["certain"], data["possible"], data["problems"]) == (2, 0, [])
    version = next(r for r in data["relations"] if r["kind"] == "version_of")
    assert (version["from"], version["to"], version["certainty"]) == (
        "ardel2022preprint",
        "ardel2023marsh",
        "certain",
    )
    # the stored PDFs say so too: each prints the other entry's title and authors
    assert "ardel2022preprint.pdf (@ardel2022preprint) prints the title" in version["evidence"]


def test_query_shows_both_versions_flagged_the_version_of_record_first(project):
    code, out = run("query", QUESTION, "-p", "papers", "-c", str(project), "--json",
                    "--local", "-k", "8")  # fmt: skip
    assert code == 0, out
    results = json.loads(out)["results"]
    for result in results:
        assert set(result) >= FLAGS
        PassageOut.model_validate(result)
    versions = [r for r in results if r["citekey"] in ("ardel2023marsh", "ardel2022preprint")]
    accretion = [r for r in versions if "6.8 millimetres" in r["text"]]
    # the same passage in both versions, neither hidden; the version of record ranks first
    assert [r["citekey"] for r in accretion] == ["ardel2023marsh", "ardel2022preprint"]
    record, preprint = accretion
    assert record["versions"] == [{"citekey": "ardel2022preprint", "version_of_record": False}]
    assert record["superseded_by"] is None
    assert preprint["superseded_by"] == "ardel2023marsh"
    assert preprint["versions"] == [{"citekey": "ardel2023marsh", "version_of_record": True}]
    code, text = run("query", QUESTION, "-p", "papers", "-c", str(project), "--local")
    assert "   ! superseded by @ardel2023marsh (the version of record)" in text
    code, quiet = run("query", "quiet hours interruptions", "-p", "papers", "-c", str(project),
                      "--local", "--json")  # fmt: skip
    first = json.loads(quiet)["results"][0]
    assert first["citekey"] == "lindqvist2021quiet" and first["retracted"] is True
    assert RETRACTION in first["banner"]


def test_answer_quotes_the_version_of_record_and_carries_its_flags(project):
    code, out = run("answer", QUESTION, "-p", "papers", "-c", str(project), "--json", "--local")
    assert code == 0, out
    data = json.loads(out)
    assert not data["fallback"]
    best = data["citations"][0]
    assert best["citekey"] == "ardel2023marsh"
    assert best["versions"] == [{"citekey": "ardel2022preprint", "version_of_record": False}]


DRAFT = (
    "Restored sites accreted 6.8 millimetres of sediment per year [@ardel2022preprint, p. 118]."
    "\n\nTwo quiet hours a day doubled the longest stretch of focused work "
    "[@lindqvist2021quiet, p. 46].\n"
)


def test_check_names_the_version_to_cite_and_warns_of_the_retraction_verdicts_unchanged(
    project, tmp_path
):
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    code, out = run("check", str(draft), "-p", "papers", "-c", str(project), "--local")
    assert code == 0, out  # both claims are supported: notes never change the verdict
    assert "supported    @ardel2022preprint (p. 118)" in out
    assert "   note: @ardel2022preprint is superseded by @ardel2023marsh (the version of " in out
    assert "   warning: @lindqvist2021quiet is retracted (" in out
    assert out.rstrip().endswith("1 warning and 1 note about the cited papers")
    data = json.loads(run("check", str(draft), "-p", "papers", "-c", str(project), "--json",
                          "--local")[1])  # fmt: skip
    preprint, quiet = data["citations"]
    assert preprint["verdict"] == "supported" and preprint["superseded_by"] == "ardel2023marsh"
    assert [(n["severity"], n["citekey"]) for n in preprint["notes"]] == [
        ("note", "ardel2023marsh")
    ]
    assert quiet["verdict"] == "supported" and quiet["retracted"] is True
    assert [n["severity"] for n in quiet["notes"]] == ["warning"]


def test_http_and_mcp_carry_the_same_fields(project):
    from fastapi.testclient import TestClient

    from citeloom import bootstrap
    from citeloom.entrypoints.http import create_app
    from tests.integration.test_mcp_server import call, session

    settings = bootstrap.settings(project)
    client = TestClient(create_app(settings, preload=False), base_url="http://127.0.0.1")
    body = {"project": "papers", "query": QUESTION, "top_k": 8}
    served = client.post("/query", json=body).json()["results"]
    cli = json.loads(run("query", QUESTION, "-p", "papers", "-c", str(project), "--json",
                         "--local", "-k", "8")[1])["results"]  # fmt: skip
    assert [{k: r[k] for k in FLAGS} for r in served] == [{k: r[k] for k in FLAGS} for r in cli]

    async def over_mcp() -> None:
        async with session(project) as mcp:
            found, failed = await call(mcp, "query_hybrid", project="papers", query=QUESTION,
                                       top_k=8)  # fmt: skip
            assert not failed
            flags = [{k: r[k] for k in FLAGS} for r in found["results"]]
            assert flags == [{k: r[k] for k in FLAGS} for r in cli]
            inspected, failed = await call(mcp, "inspect_collection", project="papers",
                                           relations=True)  # fmt: skip
            assert not failed and inspected["relations"]["certain"] == 2

    anyio.run(over_mcp)


def test_a_changed_relations_file_or_library_applies_at_the_next_query(project, tmp_path):
    folder = project.parent
    relations = folder / "relations.toml"
    before = relations.read_text(encoding="utf-8")
    try:
        relations.write_text(
            before + '\n[[conflicts_with]]\ncitekeys = ["tanabe2022notebooks", '
            '"lindqvist2021quiet"]\nreason = "they disagree on interruptions"\n',
            encoding="utf-8",
        )
        code, out = run("query", "field notebooks", "-p", "papers", "-c", str(project),
                        "--json", "--local", "--citekey", "tanabe2022notebooks")  # fmt: skip
        first = json.loads(out)["results"][0]
        assert first["conflicts_with"] == [
            {"citekey": "lindqvist2021quiet", "reason": "they disagree on interruptions"}
        ]
        relations.write_text('[[version_of]]\nversion = "a"\n', encoding="utf-8")
        code, out = run("query", "field notebooks", "-p", "papers", "-c", str(project), "--local")
        assert code == 2 and str(relations) in out and "'record' is missing" in out
    finally:
        relations.write_text(before, encoding="utf-8")
    library = folder / "library.json"
    entries = library.read_text(encoding="utf-8")
    erratum = {
        "id": "ardel2024erratum",
        "type": "article-journal",
        "title": "Erratum to: Carbon Burial in Restored Tidal Marshes: A Five-Year Sediment "
        "Core Study",
        "author": [{"family": "Ardel", "given": "Ines"}],
    }
    try:
        library.write_text(json.dumps([*json.loads(entries), erratum]), encoding="utf-8")
        code, out = run("query", QUESTION, "-p", "papers", "-c", str(project), "--json",
                        "--local", "--citekey", "ardel2023marsh")  # fmt: skip
        first = json.loads(out)["results"][0]
        assert first["related"] == [{"citekey": "ardel2024erratum", "relation": "has_erratum"}]
    finally:
        library.write_text(entries, encoding="utf-8")


@pytest.fixture(scope="module")
def arxiv_paper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real arXiv PDF of the shared corpus (it carries arXiv's stamp, v1) under two
    libraries: one where its entry is the preprint and a journal entry has the title it
    prints; one where the journal entry alone holds it."""
    folder = tmp_path_factory.mktemp("arxiv")
    pdf = folder / "papers" / "grobid_1001._0908.0054.pdf"
    pdf.parent.mkdir()
    shutil.copy(PAPERS / pdf.name, pdf)
    authors = [{"family": "Rodriguez-Montoya", "given": "Ivan"}, {"family": "Matos", "given": "T."}]
    preprint = {
        "id": "montoya2009preprint",
        "type": "article",
        "title": "Ultra-light bosonic dark matter imprints on the acoustic peaks",
        "author": authors,
        "issued": {"date-parts": [[2009]]},
        "number": "arXiv:0908.0054",
    }
    journal = {
        "id": "montoya2010journal",
        "type": "article-journal",
        "title": "Ultra light bosonic dark matter and CMB",
        "author": authors,
        "issued": {"date-parts": [[2010]]},
        "container-title": "Revista Mexicana de Fisica",
    }
    (folder / "both.json").write_text(json.dumps([preprint, journal]), encoding="utf-8")
    (folder / "journal.json").write_text(json.dumps([journal]), encoding="utf-8")
    config = folder / "citeloom.toml"
    config.write_text(
        """
[paths]
audit_dir = "var/audit"
index_dir = "var/qdrant"
cache_dir = "var/cache"

[project."both"]
collection = "proj-both"
references_json = "both.json"

[project."journal"]
collection = "proj-journal"
references_json = "journal.json"
""",
        encoding="utf-8",
    )
    for name in ("both", "journal"):
        code, out = run("ingest", str(pdf.parent), "-p", name, "-c", str(config))
        assert code == 0, out
    return config


@pytest.mark.shared
def test_a_pdf_matched_to_a_preprint_that_prints_a_journal_entrys_title_links_the_two(
    arxiv_paper,
):
    """The titles in the library differ, so only the document can tell."""
    code, out = run("inspect", "--relations", "-p", "both", "-c", str(arxiv_paper), "--json")
    assert code == 0, out
    (relation,) = json.loads(out)["relations"]
    assert (relation["kind"], relation["from"], relation["to"]) == (
        "version_of",
        "montoya2009preprint",
        "montoya2010journal",
    )
    assert (relation["certainty"], relation["origin"]) == ("certain", "document")
    assert "arXiv's stamp 0908.0054v1" in relation["evidence"]


@pytest.mark.shared
def test_the_arxiv_copy_of_a_journal_entry_is_flagged_as_a_preprint(arxiv_paper, tmp_path):
    code, out = run("inspect", "--relations", "-p", "journal", "-c", str(arxiv_paper))
    assert code == 0, out
    assert "preprint  " in out and "arXiv's stamp arXiv:0908.0054v1" in out
    code, out = run("query", "acoustic peaks of the CMB", "-p", "journal", "-c",
                    str(arxiv_paper), "--local")  # fmt: skip
    assert "! this PDF is a preprint, not the version of record" in out
    draft = tmp_path / "d.md"
    draft.write_text("Dark matter changes the CMB [@montoya2010journal].\n", encoding="utf-8")
    code, out = run("check", str(draft), "-p", "journal", "-c", str(arxiv_paper), "--local")
    assert "note: the stored PDF of @montoya2010journal is a preprint" in out


def test_a_supersession_cycle_is_named_validate_fails_and_no_paper_is_shown_superseded(
    project, tmp_path
):
    """The issue's case: two papers declared to supersede each other were both shown
    "superseded by" the other, and validate passed."""
    relations = project.parent / "relations.toml"
    before = relations.read_text(encoding="utf-8")
    cycle = "".join(
        f'\n[[supersedes]]\nnew = "{new}"\nold = "{old}"\nreason = "newer"\n'
        for new, old in (
            ("tanabe2022notebooks", "lindqvist2021quiet"),
            ("lindqvist2021quiet", "tanabe2022notebooks"),
        )
    )
    named = (
        f"{relations}: a cycle of supersession: @lindqvist2021quiet supersedes "
        "@tanabe2022notebooks (file), @tanabe2022notebooks supersedes @lindqvist2021quiet (file)"
    )
    try:
        relations.write_text(before + cycle, encoding="utf-8")
        code, out = run("validate", "-p", "papers", "-c", str(project))
        assert code == 2 and named in out, out
        code, out = run("inspect", "--relations", "-p", "papers", "-c", str(project))
        assert f"problem   {named}" in out and "supersedes" not in out.replace(named, "")
        for key, question in (
            ("lindqvist2021quiet", "quiet hours interruptions"),
            ("tanabe2022notebooks", "field notebooks"),
        ):
            result = subprocess.run(
                [CITELOOM, "query", question, "-p", "papers", "-c", str(project), "--json",
                 "--local", "--citekey", key],
                capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            assert result.returncode == 0, result.stderr
            first = json.loads(result.stdout)["results"][0]
            assert first["citekey"] == key and first["superseded_by"] is None
            assert "superseded" not in (first["banner"] or "")
            assert f"relations not applied: {named}" in result.stderr  # each command warns
        draft = tmp_path / "draft.md"
        draft.write_text(DRAFT, encoding="utf-8")
        checked = CliRunner().invoke(app, ["check", str(draft), "-p", "papers", "-c",
                                           str(project), "--json", "--local"])  # fmt: skip
        data = json.loads(checked.stdout)
        quiet = data["citations"][1]
        assert quiet["retracted"] is True and quiet["superseded_by"] is None
        assert [n["severity"] for n in quiet["notes"]] == ["warning"]  # the retraction only
    finally:
        relations.write_text(before, encoding="utf-8")
