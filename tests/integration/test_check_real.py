"""``citeloom check`` on real PDFs with the failures issue 27 found: real Docling, MiniLM, Qdrant.

Each claim below stands where a researcher would put it, cited with the page printed in the
journal (the library entries hold the page ranges a Zotero library would):

- a figure caption beside the stating sentence: the caption shares the claim's words ("weighted
  mean difference (WMD) ... haemoglobin (g/l)"), the body sentence states its number;
- a digit group the text layer splits with a space ("Ki =10 395+ -593 nM");
- a negated finding pasted as the paper prints it ("no association between ...");
- a range of pages (pp. 274-275): the true value supported naming p. 274, a wrong one a
  mismatch naming both values;
- a claim naming the paper's topic (IDA, H pylori) on a page that states the rest of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import CORPUS, write_config

pytestmark = [pytest.mark.real, pytest.mark.shared]

PAGINATED = CORPUS / "paginated"
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
        "id": "sundstrom2014stressful",
        "citation-key": "sundstrom2014stressful",
        "type": "article-journal",
        "title": "Stressful life events are not associated with the development of dementia",
        "container-title": "International Psychogeriatrics",
        "page": "147-154",
        "issued": {"date-parts": [[2014]]},
        "author": [{"family": "Sundström", "given": "Anna"}],
    },
    {
        "id": "douglas2014fragmentbased",
        "citation-key": "douglas2014fragmentbased",
        "type": "article-journal",
        "title": "Fragment-based design for the development of N-domain-selective "
        "angiotensin-1-converting enzyme inhibitors",
        "container-title": "Clinical Science",
        "page": "305-313",
        "issued": {"date-parts": [[2014]]},
        "author": [{"family": "Douglas", "given": "Ross G."}],
    },
]
FILES = {
    "huang2010iron": "postgradmedj2010_86_272.pdf",
    "sundstrom2014stressful": "intpsychogeriatr2013_life_events.pdf",
    "douglas2014fragmentbased": "clinsci2014_126_305_with_supplement.pdf",
}
HB = (
    "Changes in Hb were higher in the intervention groups of the seven studies, at {} g/l "
    "[@huang2010iron, {}]."
)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("checks")
    library = folder / "library.json"
    library.write_text(json.dumps(LIBRARY), encoding="utf-8")
    inbox = folder / "inbox"
    inbox.mkdir()
    for key, name in FILES.items():
        (inbox / f"{key}.pdf").symlink_to(PAGINATED / name)
    config = write_config(folder, library)
    code, out = run("ingest", str(inbox), "-p", "papers", "-c", str(config))
    assert code == 0, out
    return config


def check(config: Path, folder: Path, draft: str, *extra: str) -> tuple[int, list[dict]]:
    path = folder / "draft.md"
    path.write_text(draft, encoding="utf-8")
    code, out = run("check", str(path), "-p", "papers", "-c", str(config), "--json", *extra)
    assert code in (0, 1), out
    return code, json.loads(out)["citations"]


def test_a_range_states_the_true_value_on_its_page_and_holds_a_wrong_one_to_it(project, tmp_path):
    """p. 274 holds the stating sentence beside Figure 2's caption ("Weighted mean difference
    (WMD) forest plots of changes in hemoglobin (g/l) concentrations"): the caption is no
    evidence of the number, and a range hides neither a right nor a wrong value."""
    draft = "\n\n".join([HB.format("12.88", "pp. 274-275"), HB.format("18.12", "pp. 274-275")])
    code, (right, wrong) = check(project, tmp_path, draft)
    assert code == 1
    assert (right["verdict"], right["evidence"]["page_label"]) == ("supported", "274")
    assert "12.88 g/l" in right["evidence"]["quote"]
    assert wrong["verdict"] == "mismatch"
    assert wrong["message"] == "draft: 18.12 g/l; p. 274: 12.88 g/l"


def test_a_negated_finding_pasted_as_printed_is_supported(project, tmp_path):
    claim = (
        "The result of this population-based study finds no association between negative or "
        "positive life events and dementia [@sundstrom2014stressful, p. 147]."
    )
    flipped = claim.replace("finds no association", "finds an association")
    _, (said, opposite) = check(project, tmp_path, f"{claim}\n\n{flipped}")
    assert said["verdict"] == "supported", said
    assert said["evidence"]["page_label"] == "147"
    assert opposite["verdict"] == "mismatch"
    assert opposite["differences"][0]["kind"] == "negation"


def test_a_digit_group_split_by_the_text_layer_is_one_number(project, tmp_path):
    draft = (
        "Compound 33RE inhibited the C-domain only micromolar, with a Ki of 10,395 nM "
        "[@douglas2014fragmentbased, p. 307].\n\n"
        "Compound 33RE inhibited the C-domain only micromolar, with a Ki of 10,935 nM "
        "[@douglas2014fragmentbased, p. 307]."
    )
    _, (right, wrong) = check(project, tmp_path, draft)
    assert right["verdict"] == "supported", right
    assert wrong["verdict"] != "supported"


def test_fail_on_chooses_the_verdicts_that_fail_the_check(project, tmp_path):
    draft = HB.format("18.12", "pp. 274-275")
    code, (only,) = check(project, tmp_path, draft)
    assert (code, only["verdict"]) == (1, "mismatch")
    code, _ = check(project, tmp_path, draft, "--fail-on", "not-found,unknown-key")
    assert code == 0
    path = tmp_path / "draft.md"
    code, out = run("check", str(path), "-p", "papers", "-c", str(project), "--fail-on", "nope")
    assert code == 2 and "unknown verdict 'nope'" in out


def test_the_papers_topic_need_not_be_repeated_on_the_cited_page(project, tmp_path):
    """p. 277 says "Only eight RCTs were available, and all the studies were performed in
    Asia"; the claim adds the paper's topic (IDA, H pylori: named on most of its pages), which
    the citation supplies and the page need not repeat. A claim changing the place still is
    not supported."""
    claim = (
        "All studies were performed in Asia, an area with a high incidence of IDA and "
        "H pylori [@huang2010iron, p. 277]."
    )
    elsewhere = claim.replace("Asia", "Europe")
    _, (said, changed) = check(project, tmp_path, f"{claim}\n\n{elsewhere}")
    assert said["verdict"] == "supported", said
    assert said["evidence"]["page_label"] == "277"
    assert changed["verdict"] != "supported"
