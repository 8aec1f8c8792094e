"""A claim's facts against a page's sentence: numbers, units, negation, direction, names."""

import pytest

from citeloom.domain.claims import compare_facts, negated_words
from citeloom.domain.names import mentioned, names
from citeloom.domain.quantities import quantities
from citeloom.domain.questions import asked_kind, missing_focus, wants_number
from citeloom.domain.text import spellings

PAGE = "The structure consists of a 240 nm wide parabolic well modulated by ten quantum wells."
HB = (
    "The WMD of Hb concentrations from these seven studies was 12.88 g/l (95% CI 6.03 to "
    "19.74 g/l, p<0.00001)."
)


def against(claim: str, evidence: str) -> list[tuple[str, str, str]]:
    facts = compare_facts(claim, evidence)
    return [(d.kind, d.draft, d.page) for d in facts.contradictions]


def missing(claim: str, evidence: str) -> list[tuple[str, str, str]]:
    facts = compare_facts(claim, evidence)
    return [(d.kind, d.draft, d.page) for d in facts.missing]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The well is 240 nm wide.", PAGE),
        ("After the breach marshes gained about 7 mm of sediment a year.",
         "Restored marshes accreted 6.8 mm per year after the breach."),  # hedged: rounded
        ("The run took 0.5 s.", "The run took 500 ms."),  # the same time in another unit
        ("A mass-to-temperature ratio of order 10^5 fits the data.",
         "The order of magnitude needed to fit the data is xB ∝ 105."),  # superscript lost
        ("The first two peaks are lower for bosons.",
         "For bosons the first and second peaks are lower."),  # "two" is no stated figure
        ("Eight sites were sampled.", "We sampled eight sites in spring."),
        # the text layer splits digit groups with a space
        ("There were 67,562 positive and 356,834 negative instances.",
         "with 67, 562 positive instances, and 356, 834 negative instances"),
        ("The WMD of haemoglobin was 12.88 g/l.", HB),
        ("The WMD of haemoglobin was 12.9 g/l.", HB),  # rounded by the writer
        ("The WMD of haemoglobin was 1.288 g/dl.", HB),  # another unit, the same amount
        ("The WMD of haemoglobin was 12.88 g L-1.", HB),
        ("12 per cent of patients relapsed.", "Twelve percent of patients relapsed."),
        ("12% of patients relapsed.", "12 % of patients relapsed.2"),  # a footnote marker
        ("The score was 12.5.", "Die Punktzahl war 12,5."),  # a decimal comma
        # a negated finding pasted as it stands
        ("There was no association between negative or positive life events and dementia.",
         "There was no association between negative or positive life events and dementia."),
    ],
)  # fmt: skip
def test_a_claim_that_states_what_the_page_states_agrees(claim, evidence):
    assert compare_facts(claim, evidence).agree


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        ("The well is 240 nm wide and holds twelve quantum wells.", PAGE,
         ("number", "twelve quantum wells", "ten quantum wells")),
        ("The coherence time falls to 400 nanoseconds.",
         "The coherence time falls to 400 picoseconds.",
         ("unit", "400 nanoseconds", "400 picoseconds")),
        ("The laser intensity was tripled.", "The laser intensity was doubled.",
         ("number", "tripled", "doubled")),
        ("About 120 Mbytes of vector space is allocated.",
         "About 12 Mbytes of vector space is allocated.", ("number", "120 Mbytes", "12 Mbytes")),
        ("The WMD of haemoglobin was 18.12 g/l.", HB, ("number", "18.12 g/l", "12.88 g/l")),
        ("There were 67,563 positive instances.", "with 67, 562 positive instances",
         ("number", "67,563 positive instances", "67, 562 positive instances")),
        # an ångström as a text layer writes it: a ring, a space and an A
        ("The structure was solved to 1.9 nm.", "The structure was solved at 1.9 \u02daA.",
         ("unit", "1.9 nm", "1.9 Å")),
    ],
)  # fmt: skip
def test_another_value_or_unit_of_the_same_quantity_contradicts_and_is_named(
    claim, evidence, expected
):
    assert expected in against(claim, evidence)


def test_a_number_the_page_does_not_state_is_missing_not_contradicted():
    assert missing("R1 carries 57.5% of the importance.", PAGE)[0] == ("number", "57.5%", "")
    assert against("R1 carries 57.5% of the importance.", PAGE) == []


def test_a_list_of_numbers_is_not_read_as_one_number():
    # "100, 200 and 300" are three values: a claim of 100,200 is not stated
    assert not compare_facts(
        "In all, 100,200 patients took part.", "100, 200 and 300 patients"
    ).agree
    assert compare_facts("In all, 200 patients took part.", "100, 200 and 300 patients").agree


def test_figure_table_and_reference_numbers_are_no_stated_values():
    assert compare_facts(
        "Sediment accreted in the marshes.", "Sediment accreted (Table 2) [12]."
    ).agree
    assert against("Eight cores were dated.", "Cores were dated (Figure 8).") == []


def test_negation_counts_only_about_the_same_thing():
    assert ("negation", "affirms it", "not actionable nor sparse.") in against(
        "Shapley value explanations are both actionable and sparse.",
        "Yet Shapley values are not actionable nor sparse.",
    )
    # "not integrable" says nothing against a claim about the solutions found
    assert (
        against(
            "The authors obtain new exact solitary-wave solutions of a fifth-order model.",
            "The fifth-order model is not integrable by the conventional methods.",
        )
        == []
    )
    # the negation dropped from a finding
    assert [kind for kind, _, _ in against(
        "There was an association between negative or positive life events and dementia.",
        "There was no association between negative or positive life events and dementia.",
    )] == ["negation"]  # fmt: skip
    assert negated_words("We found no association between life events and dementia.") >= {"assoc"}


def test_neither_nor_is_one_negation_of_the_predicate():
    claim = (
        "Neither emotional impact nor emotional adjustment to these life events was "
        "associated with incident dementia."
    )
    # an authors' restatement of their own page (sundstrom2014stressful, p. 152)
    assert (
        against(
            claim,
            "We found no evidence that occurrences of life events were associated with the risk "
            "of developing dementia or AD.",
        )
        == []
    )
    assert against("It did not improve accuracy.", "Neither A nor B improved accuracy.") == []
    assert [kind for kind, _, _ in against(
        claim,
        "Both emotional impact and emotional adjustment to these life events were associated "
        "with incident dementia.",
    )] == ["negation"]  # fmt: skip


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Bosonic dark matter makes the first peaks higher.",
         "For bosons the first peaks are reduced."),
        ("The miniband states survive increasing disorder.",
         "The miniband states vanish with increasing disorder."),
        ("Representatives rated MDRPM worse than AHP.",
         "Representatives rate MDRPM better than AHP."),
    ],
)  # fmt: skip
def test_a_claim_going_the_other_way_contradicts_it(claim, evidence):
    assert "direction" in [kind for kind, _, _ in against(claim, evidence)]


def test_a_method_the_passage_never_names_is_missing():
    paper = "With the symbolic computation package Maple we introduce the ansatz."
    claim = "Hong and Jung use the symbolic computation package Mathematica."
    facts = compare_facts(claim, paper, ignore_names=("Hong", "Jung"))
    assert [(d.kind, d.draft) for d in facts.missing] == [("term", "Mathematica")]
    assert facts.contradictions == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What RMS error does TIMP reach with a Ti:sapphire amplifier?",
         ["Ti:sapphire", "RMS", "TIMP"]),
        ("How does PaSa compare with ResNet-50 on ImageNet?", ["PaSa", "ResNet-50", "ImageNet"]),
        ("Can the Expert Choice tool handle it?", ["Expert Choice"]),
        ("What Hong-Ou-Mandel visibility did the photons reach?", ["Hong-Ou-Mandel"]),
        ("How fast do restored salt marshes accrete sediment?", []),
    ],
)  # fmt: skip
def test_names_are_acronyms_alphanumerics_camel_case_and_capitalised_runs(text, expected):
    assert names(text) == expected


@pytest.mark.parametrize(
    ("page", "name"),
    [
        ("We parallelise with Threading-BuildingBlocks (TBB).", "Threading Building Blocks"),
        ("tasks of the Threading Build-\ning Blocks library", "ThreadingBuildingBlocks"),
        ("the RealScholarQuery benchmark", "Real Scholar Query"),
        ("the Real Scholar Query benchmark", "RealScholarQuery"),
        ("as in ResNet50 and VGG", "ResNet-50"),
        ("a Ti:sapphire amplifier", "Ti sapphire"),
        ("Compared to PaSa-GPT-4o, PaSa-7b achieves improvements", "PaSaGPT-4o"),
        ("the collisionless Boltzmann (or Vlasov) equation", "Boltzmann Vlasov"),
        ("offices in Chicago, the state of Ohio, and Illinois", "Chicago Ohio Illinois"),
    ],
)  # fmt: skip
def test_a_name_is_mentioned_in_any_spelling_a_text_layer_gives_it(page, name):
    assert mentioned(page, name)


@pytest.mark.parametrize(
    ("page", "name"),
    [
        # its words are there, but as ordinary words or inside another name
        ("Google Scholar, and semantic search over it", "Semantic Scholar"),
        ("an expert makes a choice between two requirements", "Expert Choice"),
        ("offices in Chicago and the state of Ohio", "Chicago Ohio Illinois"),
        ("the Threading library and its building blocks", "Threading Building Blocks"),
        ("the VarPro algorithm", "Var"),
    ],
)  # fmt: skip
def test_a_name_is_absent_when_no_spelling_of_it_is_there(page, name):
    assert not mentioned(page, name)


def test_spellings_glue_neighbouring_parts_and_stay_few():
    assert spellings("Threading-BuildingBlocks") == [
        ("threading", "building", "blocks"),
        ("threadingbuilding", "blocks"),
        ("threading", "buildingblocks"),
        ("threadingbuildingblocks",),
    ]
    assert spellings("PaSa") == [("pasa",)]  # humps of fewer than three letters stay whole
    long = "Greedy Parameter Stateless Routing Minimum Cost Forwarding"
    assert len(spellings(long)) == 2  # apart, and all glued: not 64


def test_a_questions_focus_is_a_number_or_the_asked_for_kind():
    assert wants_number("How many sites were sampled?")
    assert wants_number("What value of the ratio fits the data?")
    assert not wants_number("Why do marshes bury carbon?")
    assert asked_kind("Which public code computed the spectra?") == ("public", "code")
    assert asked_kind("Which R version incorporated the option?") == ("version",)
    assert missing_focus("How many sites were sampled?", "Sites were sampled in spring.") == [
        "a number"
    ]
    assert missing_focus("How many sites were sampled?", "Eight sites were sampled.") == []
    assert missing_focus("Which database trained the model?", "The model was trained well.") == [
        "database"
    ]


def test_a_hyphenated_option_the_question_names_carries_its_focus():
    question = "Which isotopes, lead-210 or caesium-137, were used to date the sediment?"
    page = "In reference marshes we dated sediment with lead-210 and checked the profiles."
    assert missing_focus(question, page) == []
    assert missing_focus(question, "In reference marshes we dated sediment cores.") == ["isotopes"]
    # every part must be there: "lead" alone is another word
    assert missing_focus(question, "Cores were taken with lead weights.") == ["isotopes"]


# ---------------------------------------------------------------- rules added for issue 27
BOLEJKO = (
    "The Lemaı̂tre–Tolman model6 [30] is a spherically symmetric, pressure free and "
    "irrotational solution of the Einstein equations."
)
PUSEP = "At B=3T another QH state with the filling factor νSL = 0.5 emerges."


def test_a_negation_in_words_is_answered_by_a_negative_affix():
    """bolejko p. 5: "exerts no pressure and does not rotate" is what "pressure free and
    irrotational" says; it was judged a contradiction."""
    claim = (
        "The Lemaître–Tolman metric solves Einstein's equations for matter that is spherically "
        "symmetric, exerts no pressure and does not rotate."
    )
    assert not compare_facts(claim, BOLEJKO).contradictions
    # an affix answers a negation of the same word only
    other = "The Lemaître–Tolman model is not a spherically symmetric solution."
    assert compare_facts(other, BOLEJKO).contradictions


def test_a_unit_written_on_to_its_number_is_read_with_it():
    """pusep p. 1 prints "B=3T": the claim's "B = 3 T" is stated, "4 T" is another value."""
    assert [q.text for q in quantities("stored at 12mK and 3T, learning rate 1e-5")] == [
        "12mK",
        "3T",
        "1e-5",
    ]
    assert not [q for q in quantities("in the 1990s, the 2nd run, model 5b")]
    assert compare_facts("A QH state with filling factor 0.5 emerges at B = 3 T.", PUSEP).agree
    wrong = compare_facts("A QH state with filling factor 0.5 emerges at B = 4 T.", PUSEP)
    assert [(d.draft, d.page) for d in wrong.contradictions] == [("4 T", "3T")]


def test_each_number_of_the_claim_is_stated_by_its_own_number_of_the_page():
    """The two 4s of "4 × 4" are not both stated by the one 4 of "4 × 1"."""
    assert not compare_facts("The comparison matrix is 4 × 4.", "The matrix is 4 × 1.").agree
    assert compare_facts("The comparison matrix is 4 × 4.", "The matrix is 4 × 4.").agree


def test_a_references_year_is_compared_only_with_a_references_year():
    """webb p. 7: "two methods" against "MUSCLE (Edgar, 2004)" was a contradiction; a
    reference's year changed is still one."""
    page = (
        "We generated alignments through MUSCLE (Edgar, 2004) and PRANK (Loytynoja & Goldman, "
        "2005) for 18 gene families (Moretti et al., 2014)."
    )
    assert compare_facts("We re-aligned the families using two methods.", page).agree
    said = against("We used 18 gene families (Moretti et al., 2018).", page)
    assert [(kind, draft) for kind, draft, _ in said] == [("number", "2018")]
    # a year that is what the sentence states is read as any value
    assert [q.value for q in quantities("between 1990 and 2004 the rate rose")] == [1990, 2004]


def test_no_evidence_that_denies_the_clause_it_introduces():
    """sundstrom p. 152 says "no evidence that ... life events were associated with ...
    dementia"; its own abstract's "no association between ... life events and dementia"
    restates it, and the claim that they were associated contradicts it."""
    page = (
        "In this prospective study, we found no evidence that occurrences of life events were "
        "associated with the risk of developing dementia."
    )
    assert compare_facts(
        "The study finds no association between negative or positive life events and dementia.",
        page,
    ).agree
    assert against("Life events were associated with the risk of dementia.", page) == [
        ("negation", "affirms it", "no evidence that occurrences of")
    ]


def test_a_label_changed_to_one_the_sentence_gives_something_else_is_contradicted():
    # the sentence names particle 2 too, but as the heavy quark: the equation is particle 1's
    page = (
        "Eq. (18a) is the Dirac equation for particle 1 with scalar and vector potentials "
        "plus the mass of the heavy quark, particle 2."
    )
    changed = page.replace("particle 1", "particle 2")
    assert ("number", "2", "1") in against(changed, page)
    assert compare_facts(page, page).agree


def test_numbers_in_names_are_no_stated_values():
    claim = (
        "PaSa-7B surpasses the best Google-based baseline, Google with GPT-4o, by 37.78% in "
        "recall@20 and 39.90% in recall@50."
    )
    assert [q.text for q in quantities(claim)] == ["37.78%", "39.90%"]
    assert [q.text for q in quantities("COVID-19 patients and IL-6 levels rose by 12%.")] == ["12%"]
    assert [q.text for q in quantities("It fell from -2 to -5 degrees.")] == [
        "-2 degrees",
        "-5 degrees",
    ]
    # he2025pasa, p. 8: "recall@20" once read as 20 %, against the page's 37.78%
    assert (
        against(
            claim,
            "Against the best Google-based baseline on RealScholarQuery, Google with GPT-4o, "
            "PaSa7b outperforms Google by 37.78%, 39.90%, and 39.83% in recall@20, recall@50 and "
            "recall@100, respectively.",
        )
        == []
    )


def test_one_of_two_is_which_not_how_many():
    # wang2008information, p. 4, restated in its own abstract
    claim = "In all, we have submitted two runs, one run for English and the other for German."
    assert [q.text for q in quantities(claim)] == ["two runs"]
    assert (
        against(
            claim,
            "We have submitted two runs for this year's AVE tasks, one for English and one "
            "for German.",
        )
        == []
    )
    assert [q.text for q in quantities("Only one run was submitted.")] == ["one run"]


def test_one_of_several_is_which_not_how_many():
    claim = (
        "Focus groups were held with fifteen participants (men, n = 12) in one of two programmes."
    )
    assert [q.text for q in quantities(claim)] == ["fifteen participants", "12", "two programmes"]
    assert (
        against(
            claim,
            "Focus groups were held with fifteen participants attending one of two programmes.",
        )
        == []
    )


def test_a_negation_is_denied_only_by_a_sentence_affirming_what_it_governs():
    claim = "Compression devices are not used for primary thromboprophylaxis."
    # datta2010complications, p. 9: the page speaks of thromboprophylaxis, not of its use
    assert (
        against(
            claim,
            "When LMWH thromboprophylaxis is contraindicated, IVC filters should be considered.",
        )
        == []
    )
    assert [kind for kind, _, _ in against(
        claim, "Compression devices are used for primary thromboprophylaxis."
    )] == ["negation"]  # fmt: skip
