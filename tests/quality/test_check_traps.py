"""check on the traps a careless author falls into, and those a checker falls into, each on a
real page of ../shared/corpus that sets it (issue 43's kinds): a plan read as done, a
refused capability read as granted, an antonym (WordNet's), a possibility read as shown, a
name swapped inside a paraphrase, a value given to the wrong thing of a list, a unit off by a
scale, a rank, a dropped "non-", a movement run the other way; and, for correct claims, a
sequence written the other way round, a derived name, a negation in other words, a list
item. A false claim must fail the hook (``mismatch``), or at
least not pass it as ``supported`` where the page says nothing the other way; a correct one
must not fail it (``supported`` or ``unconfirmed``). The claims are the benchmark's
(benchmarks/data), written by people who never read the checker, each in their own words,
not the page's."""

from __future__ import annotations

import json

import pytest

from citeloom.services.usecases.check import CHECK, CheckRequest
from tests.conftest import CORPUS, ROOT
from tests.quality.conftest import PROJECT

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]

DATA = ROOT / "benchmarks" / "data"
# false claims written by others (benchmarks/data), one fact wrong each, by the trap they set
FALSE = {
    "r1-29": "a plan for future updates read as done",
    "rc-065": "a function of the next version read as offered",
    "r1-32": "a write-back the API does not allow, read as allowed",
    "rc-136": "data that does not move through the master, read as routed through it",
    "rc-150": "quicker, where the page says considerably longer",
    "rc-042": "further from n, where the page says closer",
    "r1-40": "company A in company B's role, inside a paraphrase",
    "r1-21": "the mouse-specific count given to human-specific selection",
    "rc-094": "33RE's Ki given to RXP407",
    "rc-135": "64 MB blocks, where the page says 64 KB",
    "rodriguez-01-f": "a large effect, where the page says small albeit perceptible",
    "bolejko-10": "negative, where the sentence after the figure's says positive",
    "r4-15": "somewhat below the published rates, where the next sentence says slightly higher",
    "r4-34": "a minor compaction, where the page says a major one",
    "r5-38": "22.98% on RealScholarQuery, where the page ties it to AutoScholarQuery",
    "r1-23": "32.21% on AutoScholarQuery, where the page ties it to RealScholarQuery",
    "r5-30": "ranks second, where the page says the third leading cause",
    "r5-14": "every element, zeros included, where the page says all non-zero elements",
    "rc-003": "out of the central well, where the page moves electrons into it",
    "r1-37": "SPPC for English and StanfordNER for German, where the page pairs them the other way",
    "r2-38": "20.73 g/l given to PPI therapy, past the bracketed interval of the bismuth group's",
    "r5-04": "a finding credited to Fountoulakis et al., where the page credits Johansson et al.",
    "r3-32": "3.6 times more important, where the page says 3.6 times less",
    "r6-17": "SMES 'produces for' English, where the page pairs Minipar with English",
    "r6-26": "2.2 nm, where the page's text layer writes 2.2 Å as a ring and an A",
    "r6-36": "the Bethe-Salpeter equation, where the page's static limit gives the Dirac equation",
    "r6-13": "39.36% in Recall@20, where the page's 39.36% improvement is in Recall@50",
    "r7-04": "PPI therapy better than bismuth, where the page's sentence opens with bismuth",
    "r7-20": "a few megabytes of storage, where the page says a few kilobytes",
    "r8-32": "a search restricted to Medline, where the page searched not only Medline",
    "r9-16": "a finding credited to Wiltshire, where the page's 'presented by Räsänen' lost its "
    "accents' places in the text layer",
    "r9-39": "20% better than Qwen-2.5-7b, where the page outperforms Qwen-2.5-7b by 30%",
    "r10-35": "publication bias, where the sentence giving the second figure says a lack of it",
    "r12-24": "screening recommended, where the box's line break cut 'is not currently "
    "recommended' from its sentence",
    "r12-31": "patients who live past their first week, where the page says the first day",
    "r13-10": "a graph neural network in words, where the page trained an RNN",
    "r13-40": "only one of the two companies, where the next sentence says both of them",
    "r14-14": "a rate that stays under 50%, where the page's rates exceed 50%",
    "r14-18": "only the vertical technique, where the page says either vertical or lateral",
    "r14-37": "all of the baselines but one, where the page says all baselines",
    "r14-07": "SMES for German, where the page has SPPC for German and SMES for questions",
    "r15-32": "the chloroform fraction given the n-hexane's LC50 of a list read 'respectively'",
    "r17-22": "recommended only for patients with mild symptoms, where the page says all patients",
    "r17-27": "Vijayan's trial given 90 days, where the page's other clause gives Sarker 90 days",
    "r19-07": "only company A's representatives, where the page says both the companies",
    "r19-31": "patients openly criticised how little capacity there was, where they 'do not "
    "openly complain about the limited capacity'",
}
# false claims the page does not state, though it says nothing the other way in their slot:
# they must not pass as supported
UNSTATED = {
    "r2-01": "a possibility the page raises, read as shown",
    "r3-15": "six of eight men, where the page's next sentence says five of eight",
    "r1-31": "zones of varying size 'rather than' a fixed one, where the page assumes a fixed size",
}
# correct claims a checker reading words, not facts, called wrong
CORRECT = {
    "rc-083": "Swedish for the page's Sweden, sex for its gender",
    "rc-031": "the CMB spectrum beside a sentence naming the ULBDM in another role",
    "rc-148": "one gene of a list that also names the aligners",
    "r1-05": "R381E for the page's Arg 381 to Glu",
    "r1-01": "no evidence of bias, where the page says a lack of bias",
    "rc-127": "low trust, where the page says a lack of trust",
    "rc-074": "lack of sparsity, where the page says not sparse (its non-zero kept)",
    "rc-068": "a sequence of steps written the other way round",
    "r4-14": "three fungal species, where the page says 3 fungi after a reference marker 9",
    "r4-17": "a method that 'will' do each step, read as a plan",
    "pusep-09": "electrons moving from the neighbouring wells into the central one",
    "pasa-13": "two recall costs, each tied to its own dataset",
    "rc-102": "the third leading cause of death, as the page ranks it",
    "rc-082": "did not predict dementia, where the page finds no association with its incidence",
    "r3-11": "pulmonary embolism from thrombosis, beside the page's 'without thromboprophylaxis'",
    "r7-19": "a triplet 'rather than' a double doublet, where the page says 'the absence of' one",
    "r7-39": "skipping a step the page calls 'not necessary and a hamiltonian ... can be built'",
    "r9-02": "an 8-fold loss for Arg381-to-Glu, beside the page's residue position 'Arg 381'",
    "r9-04": "'heights of 1 and 2 and FWHMs of 5000', where the page lists amplitudes 1 and 2",
    "r9-40": "the hospital's name, where a structured abstract's 'Results: Human resource' opens",
    "r10-26": "2,589 enrolled, then 'exclusions for missing data' across a comma from it",
    "r11-29": "117 beds of more than 1000, where the page says 'bed capacity of 117'",
    "r11-39": "'free of dementia at baseline', where the page says who developed it",
    "r12-11": "people 'without dementia at baseline', of whom 423 went on to develop it",
    "r13-27": "four LC50 values of a list the page gives 'respectively', in another order",
    "r14-19": "'does not consider whether ... chemically stable' for 'does not account for the "
    "chemical stability'",
    "r14-40": "clusters 'beyond those used for testing', where the page says non-test clusters",
    "r15-05": "two separate quantum dots, beside an affiliation's 'Joint Quantum Institute'",
    "r17-11": "'which they take as evidence that' for the page's 'which suggests the necessity'",
    "r18-24": "the lowest value, where the page says lower and its next sentence 'on the "
    "contrary, a higher value'",
}


def _items() -> dict[str, dict]:
    out = {}
    for name in (
        "fresh_claims_r1.json",
        "fresh_claims_r2.json",
        "fresh_claims_r3.json",
        "fresh_claims_r4.json",
        "fresh_claims_r5.json",
        "fresh_claims_r6.json",
        "fresh_claims_r7.json",
        "fresh_claims_r8.json",
        "fresh_claims_r9.json",
        "fresh_claims_r10.json",
        "fresh_claims_r11.json",
        "fresh_claims_r12.json",
        "fresh_claims_r13.json",
        "fresh_claims_r14.json",
        "fresh_claims_r15.json",
        "fresh_claims_r16.json",
        "fresh_claims_r17.json",
        "fresh_claims_r18.json",
        "fresh_claims_r19.json",
        "realistic_claims.json",
        "false_restatements.json",
        "claims.json",
    ):
        for item in json.loads((DATA / name).read_text(encoding="utf-8"))["claims"]:
            out[item["id"]] = item
    return out


@pytest.fixture(scope="module")
def verdicts(quality_project):
    """Every claim above cited to the printed label of its PDF page, checked in one draft."""
    project = quality_project(CORPUS)
    lines = []
    items = _items()
    with project.check_service() as service:  # the printed label of each PDF page
        papers = service.papers()
    for item_id in [*FALSE, *UNSTATED, *CORRECT]:
        claim, key, pdf_page = (items[item_id][k] for k in ("claim", "citekey", "pdf_page"))
        labels = next((d.labels for d in papers[key] if d.labels is not None), None)
        label = labels.label(pdf_page) if labels is not None else str(pdf_page)
        lines.append(f"{claim.rstrip('.')} [@{key}, p. {label}].")
    draft = "\n\n".join(lines)
    request = CheckRequest(project=PROJECT, draft=draft, name="traps.md", format="markdown")
    report = project.app().run(CHECK, request)
    return dict(zip([*FALSE, *UNSTATED, *CORRECT], report.citations, strict=True))


@pytest.mark.parametrize("item", FALSE, ids=list(FALSE))
def test_a_restatement_with_one_fact_wrong_fails_the_hook(verdicts, item):
    check = verdicts[item]
    assert check.verdict == "mismatch", (FALSE[item], check.verdict, check.message)
    assert check.message.startswith("draft: ")  # what differs is named, both sides


@pytest.mark.parametrize("item", UNSTATED, ids=list(UNSTATED))
def test_a_claim_that_says_more_than_its_page_is_not_supported(verdicts, item):
    check = verdicts[item]
    assert check.verdict != "supported", (UNSTATED[item], check.message)
    if "possibility" in UNSTATED[item]:  # the reader is told why: the page's own hedge
        assert "as a possibility" in check.message and "it is possible that" in check.message


@pytest.mark.parametrize("item", CORRECT, ids=list(CORRECT))
def test_a_correct_claim_in_other_words_passes_the_hook(verdicts, item):
    check = verdicts[item]
    assert check.verdict in ("supported", "unconfirmed"), (CORRECT[item], check.verdict)
