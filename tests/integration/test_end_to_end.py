"""The CLI end to end on real PDFs from ../shared: real Docling, FastEmbed and Qdrant Edge."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import DATA, EXAMPLES, PAPERS, write_config

pytestmark = pytest.mark.real

SUBSET = [
    "grobid_0807.3577.pdf",  # DOI printed on page 1
    "grobid_test_Grobid_1_05452615.pdf",  # DOI printed, IEEE two-column
    "grobid_Wang-paperAVE2008.pdf",  # title only
    "paperqa_pasa.pdf",  # title only, arXiv stamp in the margin
    "grobid_1001._0908.0054.pdf",  # "collisionless Boltzmann (or Vlasov) equation", p. 2
    "paperqa_duplicate_media.pdf",  # a template with no reference entry
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("project")
    inbox = folder / "inbox"
    inbox.mkdir()
    for name in SUBSET:
        (inbox / name).symlink_to(PAPERS / name)
    (inbox / "broken.pdf").write_bytes(b"%PDF-1.4\n% truncated before any object")
    config = write_config(folder, DATA / "papers.csl.json")
    code, out = run("ingest", str(inbox), "--project", "papers", "--config", str(config), "--json")
    return {
        "folder": folder,
        "inbox": inbox,
        "config": config,
        "code": code,
        "report": json.loads(out),
    }


@pytest.mark.shared
def test_ingest_reports_citekeys_and_match_kinds(project):
    docs = {Path(d["path"]).name: d for d in project["report"]["documents"]}
    expected = {
        "grobid_0807.3577.pdf": ("bolejko2008apparent", "doi"),
        "grobid_test_Grobid_1_05452615.pdf": ("iqbal2010new", "doi"),
        "grobid_Wang-paperAVE2008.pdf": ("wang2008information", "title"),
        "paperqa_pasa.pdf": ("he2025pasa", "arxiv"),  # the arXiv stamp in the margin
        "paperqa_duplicate_media.pdf": (None, None),
    }
    for name, (citekey, match) in expected.items():
        assert docs[name]["status"] == "ingested", docs[name]
        assert (docs[name]["citekey"], docs[name]["match"]) == (citekey, match), name
        assert docs[name]["chunks"] > 0
    assert docs["grobid_0807.3577.pdf"]["pages"] == 15


@pytest.mark.shared
def test_a_broken_file_fails_alone_with_exit_1(project):
    assert project["code"] == 1
    broken = next(d for d in project["report"]["documents"] if d["path"].endswith("broken.pdf"))
    assert broken["status"] == "failed"
    assert "broken.pdf" in broken["error"] and "damaged" in broken["error"]
    assert project["report"]["totals"]["ingested"] == len(SUBSET)


@pytest.mark.shared
def test_audit_file_is_named_by_the_correlation_id(project):
    cid = project["report"]["correlation_id"]
    audit = project["folder"] / "var" / "audit" / f"{cid}.jsonl"
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    documents = [e for e in events if e["event"] == "document"]
    assert len(documents) == len(SUBSET) + 1
    assert all(e["correlation_id"] == cid for e in events)
    assert events[-1]["event"] == "run_finished"
    template = next(e for e in documents if e["path"].endswith("duplicate_media.pdf"))
    assert template["metadata"] == "MetadataMissing"
    ingested = next(e for e in documents if e["status"] == "ingested")
    assert {"convert", "match", "chunk", "embed", "index"} <= set(ingested["durations_s"])


@pytest.mark.shared
def test_query_returns_the_right_paper_page_and_section(project):
    code, out = run(
        "query",
        "Buchert averaging of the Einstein equations",
        "--project",
        "papers",
        "--config",
        str(project["config"]),
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    top = result["results"][0]
    assert set(top) == {
        "rank",
        "score",
        "citekey",
        "title",
        "authors",
        "year",
        "doi",
        "url",
        "page_start",
        "page_end",
        "page_label_start",
        "page_label_end",
        "page_label_source",
        "section",
        "section_path",
        "text",
        "source",
        "chunk_id",
        "doc_id",
        "kind",
        "label",
        # relations between library entries (docs/relations.md)
        "versions",
        "superseded_by",
        "retracted",
        "conflicts_with",
        "related",
        "banner",
        # the way back to Zotero (docs/zotero.md): null in a CSL-JSON project
        "zotero",
        # how well this passage alone matches, beside the response's min_confidence
        "confidence",
    }
    assert top["zotero"] is None
    assert 0 <= top["confidence"] <= 1 and result["min_confidence"] is not None
    assert top["citekey"] == "bolejko2008apparent"
    # the library holds the authors' reply to comments on it
    assert top["related"] == [{"citekey": "bolejko2009reply", "relation": "has_reply"}]
    assert top["banner"] == "has a reply or comment: @bolejko2009reply"
    assert 4 <= top["page_start"] <= top["page_end"] <= 5
    assert top["section_path"][0] == "2. The Buchert scheme"
    assert top["doi"] == "10.1088/1475-7516/2008/10/003"


@pytest.mark.shared
def test_citations_name_the_printed_page_and_keep_the_pdf_page(project):
    """iqbal2010new is printed on pp. 142-149 of its proceedings: PDF page 3 is p. 144."""
    args = ["--project", "papers", "--config", str(project["config"]), "--citekey", "iqbal2010new"]
    question = "analytical hierarchical process for prioritizing requirements"
    code, out = run("query", question, *args, "--json")
    assert code == 0, out
    for hit in json.loads(out)["results"]:
        assert hit["page_label_source"] == "printed"
        assert hit["page_label_start"] == str(141 + hit["page_start"])
        assert hit["label"].startswith(f"[@iqbal2010new, p. {hit['page_label_start']}")
    top = json.loads(out)["results"][0]
    code, out = run("query", question, *args)
    assert f"{top['label']} (PDF p" in out  # the PDF page beside, for opening the file


@pytest.mark.shared
def test_query_text_output_has_citation_labels(project):
    code, out = run(
        "query",
        "LLM agent that searches for academic papers",
        "--project",
        "papers",
        "--config",
        str(project["config"]),
    )
    assert code == 0
    assert re.match(r"1\. \[@he2025pasa, (p\. \d+|pp\. \d+-\d+)\]", out.splitlines()[0])


def query_json(project: dict, *args: str) -> dict:
    code, out = run("query", *args, "-p", "papers", "-c", str(project["config"]), "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.mark.shared
def test_quoted_phrases_filters_and_per_doc_on_the_real_engine(project):
    phrase = query_json(project, '"answer validation" errors')
    assert phrase["results"] and all(
        "answer validation" in r["text"].lower() for r in phrase["results"]
    )
    only = query_json(project, "evaluation of search agents", "--citekey", "he2025pasa")
    assert {r["citekey"] for r in only["results"]} == {"he2025pasa"}
    recent = query_json(project, "evaluation", "--year-from", "2020", "--top-k", "10")
    assert recent["results"] and all(r["year"] >= 2020 for r in recent["results"])
    spread = query_json(project, "paper", "--per-doc", "1", "--top-k", "10")
    sources = [r["source"] for r in spread["results"]]
    assert len(sources) == len(set(sources)) > 1


@pytest.mark.shared
def test_budget_and_pandoc_context_for_an_llm(project, embedder):
    full = query_json(project, "agent paper search")["results"]
    cut = query_json(project, "agent paper search", "--budget", "300")["results"]
    assert 1 <= len(cut) < len(full)
    assert sum(embedder.count_tokens(r["text"]) for r in cut) <= 300
    code, context = run(
        "query",
        "agent paper search",
        "-p",
        "papers",
        "-c",
        str(project["config"]),
        "--budget",
        "300",
        "--format",
        "context",
    )
    assert code == 0
    labels = re.findall(r"^\[@(\w+), pp?\. \d+(?:-\d+)?\]", context, flags=re.M)
    assert labels == [r["citekey"] for r in cut]


@pytest.mark.shared
def test_a_question_the_library_cannot_answer_is_flagged_not_hidden(project):
    question = "How does guide RNA length affect CRISPR-Cas9 off-target cleavage rates?"
    result = query_json(project, question)
    assert result["answerable"] is False and result["confidence"] < 0.5
    assert result["results"]  # the nearest passages are still listed
    code, out = run("query", question, "-p", "papers", "-c", str(project["config"]))
    assert code == 0 and out.startswith("No confident answer in project 'papers'")
    answered = query_json(project, "Buchert averaging of the Einstein equations")
    assert answered["answerable"] is True and answered["confidence"] >= 0.5


@pytest.mark.shared
@pytest.mark.parametrize(
    "question",
    [
        # the text layer of paperqa_pasa.pdf reads "RealScholarQuery"
        "How many queries does the Real Scholar Query benchmark hold?",
        # page 2 of the bosons paper names Boltzmann and Vlasov apart: "Boltzmann (or Vlasov)"
        "How is the collisionless Boltzmann Vlasov equation of the ultra light bosons solved?",
    ],
)
def test_answer_finds_a_name_spelled_as_the_pdf_spells_it(project, question):
    code, out = run("answer", question, "-p", "papers", "-c", str(project["config"]), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert not data.get("absent"), data.get("reason")
    assert "Nothing in this library mentions" not in (data.get("reason") or "")


@pytest.mark.shared
def test_a_name_whose_words_are_only_ordinary_words_there_is_still_absent(project):
    # PaSa names "Google Scholar" and semantic things, never "Semantic Scholar"
    question = "How many papers does PaSa fetch from the Semantic Scholar API for each query?"
    code, out = run("answer", question, "-p", "papers", "-c", str(project["config"]), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["fallback"] and "Semantic Scholar" in data["absent"]


@pytest.mark.shared
def test_projects_never_see_each_others_passages(project):
    other = write_config(
        project["folder"],
        DATA / "papers.csl.json",
        name="two.toml",
        extra=f'[project."notes"]\ncollection = "proj-notes"\n'
        f'references_json = "{EXAMPLES.parent.parent / "references" / "example.json"}"\n',
    )
    example = EXAMPLES / "ardel2023_restored_marshes.pdf"
    code, out = run("ingest", str(example), "-p", "notes", "-c", str(other), "--json")
    assert code == 0, out
    for name, query, foreign in (
        ("notes", "answer validation of question answering", "papers"),
        ("papers", "carbon burial in restored tidal marshes", "examples"),
    ):
        code, out = run("query", query, "-p", name, "-c", str(other), "--json", "-k", "20")
        results = json.loads(out)["results"]
        assert results
        if foreign == "papers":
            assert all(r["source"] == str(example) for r in results)
        else:
            assert all("examples" not in r["source"] for r in results)


@pytest.mark.shared
def test_inspect_lists_documents(project):
    code, out = run("inspect", "--project", "papers", "--config", str(project["config"]), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["embed_model"] == "fastembed/all-MiniLM-L6-v2-fp32"
    assert report["dimensions"] == 384
    assert {d["citekey"] for d in report["documents"]} >= {
        "bolejko2008apparent",
        "he2025pasa",
        None,
    }
    assert report["points"] == sum(d["chunks"] for d in report["documents"])


@pytest.mark.shared
def test_reingest_skips_unchanged_files(project):
    before = json.loads(run("inspect", "-p", "papers", "-c", str(project["config"]), "--json")[1])
    code, out = run(
        "ingest",
        str(project["inbox"] / SUBSET[2]),
        "-p",
        "papers",
        "-c",
        str(project["config"]),
        "--json",
    )
    assert code == 0
    assert [d["status"] for d in json.loads(out)["documents"]] == ["skipped"]
    after = json.loads(run("inspect", "-p", "papers", "-c", str(project["config"]), "--json")[1])
    assert after["points"] == before["points"]


@pytest.mark.shared
def test_write_guard_exits_4_and_writes_nothing(project):
    sidecar = project["folder"] / "var" / "qdrant" / "proj-papers" / "collection.json"
    original = sidecar.read_text()
    before = json.loads(run("inspect", "-p", "papers", "-c", str(project["config"]), "--json")[1])
    meta = json.loads(original)
    meta["embed_model"] = "fastembed/some-other-model"
    sidecar.write_text(json.dumps(meta))
    try:
        fresh = project["folder"] / "fresh"
        fresh.mkdir()
        (fresh / "w.pdf").symlink_to(PAPERS / "grobid_submission_363.pdf")
        code, out = run("ingest", str(fresh), "-p", "papers", "-c", str(project["config"]))
        assert code == 4
        assert "fastembed/some-other-model" in out and "fastembed/all-MiniLM-L6-v2" in out
        assert "Traceback" not in out
    finally:
        sidecar.write_text(original)
    after = json.loads(run("inspect", "-p", "papers", "-c", str(project["config"]), "--json")[1])
    assert after["points"] == before["points"]
    assert not any(d["path"].endswith("w.pdf") for d in after["documents"])


@pytest.mark.shared
def test_inspect_lists_unmatched_documents_with_their_best_candidates(project):
    code, out = run("inspect", "-p", "papers", "-c", str(project["config"]))
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "duplicate_media.pdf" in line)
    assert "no reference match" in lines[at]
    assert "MetadataMissing; best candidates: @" in lines[at + 1]


@pytest.mark.shared
def test_a_changed_library_relabels_stored_documents(project):
    refs = json.loads((DATA / "papers.csl.json").read_text())
    for entry in refs:
        if entry["id"] == "wang2008information":
            entry["id"] = entry["citation-key"] = "wang2008synthesis"
    changed = project["folder"] / "changed.json"
    changed.write_text(json.dumps(refs))
    config = write_config(project["folder"], changed, name="changed.toml")
    before = json.loads(run("inspect", "-p", "papers", "-c", str(config), "--json")[1])
    code, out = run(
        "ingest", str(project["inbox"] / SUBSET[0]), "-p", "papers", "-c", str(config), "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert [(Path(r["path"]).name, r["old"], r["new"]) for r in report["relabelled"]] == [
        ("grobid_Wang-paperAVE2008.pdf", "wang2008information", "wang2008synthesis")
    ]
    after = json.loads(run("inspect", "-p", "papers", "-c", str(config), "--json")[1])
    assert after["points"] == before["points"]  # labels changed, nothing re-embedded
    code, out = run(
        "query", "answer validation exercise", "-p", "papers", "-c", str(config), "--json"
    )
    assert json.loads(out)["results"][0]["citekey"] == "wang2008synthesis"


def test_the_readme_quick_start_finds_the_example_paper_and_page(tmp_path):
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    question = re.search(r'citeloom query "([^"]+)" --project example', readme).group(1)
    config = write_config(tmp_path, EXAMPLES.parent.parent / "references" / "example.json")
    code, out = run("ingest", str(EXAMPLES.parent), "-p", "papers", "-c", str(config), "--json")
    assert code == 0
    labels = {
        Path(d["path"]).name: (d["citekey"], d["match"]) for d in json.loads(out)["documents"]
    }
    assert labels == {
        "ardel2023_restored_marshes.pdf": ("ardel2023marsh", "doi"),
        "lindqvist2021_quiet_hours.pdf": ("lindqvist2021quiet", "title"),
        "tanabe2022_field_notebooks.pdf": ("tanabe2022notebooks", "title"),
    }
    code, out = run("query", question, "-p", "papers", "-c", str(config))
    assert code == 0
    first = next(line for line in out.splitlines() if re.match(r"\d+\. \[@", line))
    assert first.startswith("1. [@ardel2023marsh, p. ")
    result = json.loads(run("query", question, "-p", "papers", "-c", str(config), "--json")[1])
    accretion = next(r for r in result["results"] if "3.1 Accretion rates" in r["section_path"])
    assert (accretion["citekey"], accretion["page_start"]) == ("ardel2023marsh", 2)
