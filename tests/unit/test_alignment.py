"""The judging core over fakes: which span states a claim, and the outcome it gives."""

from __future__ import annotations

import pytest

from citeloom.domain.abbreviations import abbreviations
from citeloom.domain.abstention import stem, text_stems
from citeloom.domain.alignment import (
    PageText,
    claim_content,
    names_held,
    page_spans,
    pervasive,
)
from citeloom.domain.text import fold
from citeloom.services.claim_judge import ClaimJudge
from tests.fakes import FakeEmbedder

BODY = (
    "We tagged the corpus by hand. The training set holds 27 sentences in which 13 relations "
    "were tagged exhaustively. Each relation was checked twice."
)
CAPTION = "Figure 8: Relations for the scoring domain with the number of training sentences."
MASTER = (
    "Our current implementation aborts the MapReduce computation if the master fails. "
    "Clients can check for this condition and retry the MapReduce operation if they desire."
)


def judge() -> ClaimJudge:
    return ClaimJudge(FakeEmbedder(dimensions=256), lambda claim: {})


def outcome(claim: str, *pages: PageText) -> tuple[str, str | None, int | None]:
    core = judge()
    judged = core.judge(
        core.content(claim), pages, abbreviations(" ".join(t for p in pages for _, t in p.blocks))
    )
    span = judged.alignment.span if judged.alignment else None
    return judged.outcome, span.text if span else None, span.page if span else None


def test_spans_are_sentences_and_runs_of_two_or_three_body_sentences_across_blocks():
    page = PageText(
        3,
        (
            ("text", "One two three four. Five six seven eight."),
            ("text", "Nine ten eleven twelve."),
            ("caption", CAPTION),
            ("heading", "Results of the run"),
        ),
    )
    texts = [(s.text, s.body) for s in page_spans(page)]
    assert ("One two three four. Five six seven eight. Nine ten eleven twelve.", True) in texts
    assert (CAPTION, False) in texts
    assert all("Results of the run" not in t for t, _ in texts)  # a heading states nothing


def test_a_sentence_cut_by_a_block_boundary_is_one_sentence_again():
    # a column break, a figure between, or a conversion that made each line a block
    page = PageText(
        20,
        (
            ("text", "The MMACE method was modified for the multi-label aspect of scent. This"),
            ("text", "modification defines molecules that differed by only the selected"),
            ("caption", "Figure 5: Counterfactual for the 2,4 decadienal molecule."),
            ("text", "scent as counterfactuals. The deca-"),
            ("text", "dienal molecule is fatty."),
            ("text", "Jasmone is woody."),
        ),
    )
    sentences = [s.text for s in page_spans(page, widths=(1,)) if s.body]
    assert sentences == [
        "The MMACE method was modified for the multi-label aspect of scent.",
        "This modification defines molecules that differed by only the selected scent as "
        "counterfactuals.",
        "The decadienal molecule is fatty.",
        "Jasmone is woody.",  # a block that starts a sentence stays apart
    ]


def test_a_paraphrase_keeps_the_claims_names():
    page = (
        "They compared gradient based methods when predicting activity cliffs and concluded "
        "that gradCAM and integrated gradients (IG) provided the most interpretability for GNNs."
    )
    forms = abbreviations(page)
    held = [
        names_held(claim_content(claim, {}), page, forms)
        for claim in (
            "Rao concluded that SHAP and LIME gave the most interpretability for GNNs.",
            "Rao concluded that gradCAM and IG gave the most interpretability for GNN models.",
            "Rao found integrated gradients most interpretable for a GNN.",
        )
    ]
    assert held == [False, True, True]  # renamed; abbreviated as the paper does; in the singular


def test_the_sentence_stating_the_claim_is_evidence_not_the_caption_beside_it():
    page = PageText(2, (("text", BODY), ("caption", CAPTION)))
    got = outcome("The training set has 27 sentences with 13 relations tagged exhaustively.", page)
    assert got[0] == "supported" and "27 sentences" in (got[1] or "")


def test_a_caption_is_evidence_when_no_body_sentence_aligns():
    page = PageText(2, (("text", "Unrelated prose about marsh sediment."), ("caption", CAPTION)))
    got = outcome("Figure 8 gives the relations for the scoring domain.", page)
    assert got[1] == CAPTION


def test_a_range_is_stated_when_one_of_its_pages_states_it_and_that_page_is_named():
    first = PageText(
        3,
        (
            (
                "text",
                "The WMD of Hb concentrations from these seven studies was "
                "12.88 g/l (95% CI 6.03 to 19.74 g/l, p<0.00001).",
            ),
        ),
    )
    second = PageText(4, (("text", "Serum ferritin rose in the intervention groups."),))
    defined = PageText(
        1, (("text", "Haemoglobin (Hb) and the weighted mean difference (WMD) were pooled."),)
    )
    core = judge()
    forms = abbreviations(" ".join(t for p in (defined, first, second) for _, t in p.blocks))
    right = core.judge(
        core.content("The WMD of haemoglobin was 12.88 g/l."), [first, second], forms
    )
    assert right.outcome == "supported" and right.alignment and right.alignment.span.page == 3
    wrong = core.judge(
        core.content("The WMD of haemoglobin was 18.12 g/l."), [first, second], forms
    )
    assert wrong.outcome == "mismatch"
    assert [(d.draft, d.page) for d in wrong.differences] == [("18.12 g/l", "12.88 g/l")]


def test_a_claim_whose_distinctive_parts_are_absent_is_not_supported_by_its_topic():
    page = PageText(5, (("text", MASTER),))
    claim = (
        "When the master fails, the library promotes a worker to master and resumes from the "
        "last checkpoint."
    )
    assert outcome(claim, page)[0] in ("unconfirmed", "not-found")


def test_a_negated_finding_pasted_as_it_stands_is_supported_and_its_opposite_is_not():
    page = PageText(
        1,
        (
            (
                "text",
                "There was no association between negative or positive life "
                "events and dementia. Stress was measured at baseline.",
            ),
        ),
    )
    said = "There was no association between negative or positive life events and dementia."
    assert outcome(said, page)[0] == "supported"
    flipped = "There was an association between negative or positive life events and dementia."
    assert outcome(flipped, page)[0] == "mismatch"


@pytest.mark.parametrize(
    "claim",
    [
        "The training set holds 72 sentences in which 13 relations were tagged exhaustively.",
        "The training set holds 27 sentences in which 13 relations were not tagged exhaustively.",
        "The training set holds 27 sentences in which 31 relations were tagged exhaustively.",
    ],
)
def test_a_changed_fact_of_the_stating_sentence_is_never_supported(claim):
    page = PageText(2, (("text", BODY), ("caption", CAPTION)))
    assert outcome(claim, page)[0] != "supported"


def test_nothing_aligned_is_not_found():
    page = PageText(1, (("text", BODY),))
    assert outcome("Restored marshes accreted sediment faster than natural ones.", page)[0] == (
        "not-found"
    )


def test_the_papers_topic_is_context_a_cited_page_need_not_repeat():
    """iqbal p. 145 says "R1 contains 57.5% of total importance" in a paper on MDRPM: the
    citation names the paper, so "MDRPM" and "requirement" (on most of its pages) are context;
    the claim's own content and its number are what the page must state."""
    pages = [
        PageText(n, (("text", f"MDRPM prioritises requirements by market value. Page {n}."),))
        for n in range(1, 6)
    ]
    cited = PageText(
        6,
        (
            (
                "text",
                "The example was computed by hand. R1 contains 57.5% of total importance. "
                "The rest is shared.",
            ),
        ),
    )
    claim = "In the worked example of MDRPM, requirement R1 carries 57.5% of the total importance."
    core = judge()
    paper = fold(" ".join(t for p in [*pages, cited] for _, t in p.blocks))
    topic = pervasive([*pages, cited], 0.5)
    assert stem("mdrpm") in topic and stem("requirements") in topic
    with_topic = core.content(claim, paper=paper, topic=topic)
    assert core.judge(with_topic, [cited]).outcome == "supported"
    alone = core.content(claim, paper=paper)
    assert core.judge(alone, [cited]).outcome == "unconfirmed"
    # a claim made of the topic alone keeps its terms: the topic is not the content
    only = core.content("MDRPM prioritises requirements.", paper=paper, topic=topic)
    assert set(only.weights) == {"mdrpm", "prioritises", "requirements"}


def test_a_name_in_the_plural_and_an_open_compound_are_the_same_words():
    """Bigtable p. 216 writes "Bigtable" for a claim's "Bigtables"; douglas p. 307 writes
    "short list" for "shortlist": neither is another name or a missing term."""
    page = PageText(
        3,
        (
            (
                "text",
                "This approach resulted in a short list of compounds for Bigtable that had "
                "interactions equal or improved compared to the parent molecule.",
            ),
        ),
    )
    claim = (
        "A shortlist of compounds for Bigtables had interactions equal or improved compared "
        "to the parent molecule."
    )
    assert outcome(claim, page)[0] == "supported"
    held = text_stems("resulted in a short list of compounds from the data set")
    assert {stem("shortlist"), stem("dataset")} <= held
    assert stem("listof") not in held  # a word of two letters glues to nothing


def test_a_question_on_the_page_contradicts_nothing():
    page = PageText(
        7,
        (
            (
                "text",
                "This raises the question of whether the average acceleration has any relation "
                "to the observed acceleration; are models with average acceleration also able "
                "to fit supernova data?",
            ),
        ),
    )
    claim = "Averaged models that fit the supernova data do not lead to volume acceleration."
    assert outcome(claim, page)[0] != "mismatch"


def test_a_name_written_with_its_variant_is_no_other_name():
    page = PageText(
        8,
        (
            (
                "text",
                "Against the best baseline on RealScholarQuery, PaSa7b outperforms Google by "
                "37.78% in recall@20.",
            ),
        ),
    )
    claim = "PaSa outperforms Google by 37.78% in recall@20."
    assert outcome(claim, page)[0] != "mismatch"


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        # wang2008information, p. 4: "QA" is the claim's own "question answering"
        (
            "For both English and German, the DFKI validation system beat the best question "
            "answering system.",
            "In the table, we notice that both for English and German, our validation system "
            "outperforms the best QA systems.",
        ),
        # a text layer glued "Google-based"
        (
            "PaSa7b improves recall over Google with GPT-4o, the strongest Googlebased baseline.",
            "PaSa7b improves recall over the best Google-based baseline, Google with GPT-4o.",
        ),
    ],
)
def test_a_name_the_claim_says_in_other_words_is_no_other_name(claim, said):
    page = PageText(4, (("text", said),))
    assert outcome(claim, page)[0] != "mismatch"


@pytest.mark.parametrize(
    "claim",
    [
        "The most powerful observable is the Cosmic Microwave Background (IAC) spectrum.",
        "Breath tests were run: HS, urea breath test.",
    ],
)
def test_a_name_the_claim_defines_beside_the_words_is_its_own(claim):
    page = PageText(
        1,
        (
            (
                "text",
                "The most powerful observable is the Cosmic Microwave Background (CMB) spectrum. "
                "Breath tests were run: UBT, urea breath test.",
            ),
        ),
    )
    assert outcome(claim, page)[0] != "supported"
