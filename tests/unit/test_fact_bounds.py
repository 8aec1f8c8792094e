"""Bounds a restatement turns around or says in other words: "only one" of a pair the page
gives both, "all but one" of what the page gives all, "under" a figure the page exceeds;
and the same bound said another way ("beyond those used for testing" for "non-test",
"stable" for "stability"), which a checker must not call wrong."""

from __future__ import annotations

from citeloom.domain.claims import compare_facts, negation_facts
from citeloom.domain.directions import direction_facts
from citeloom.domain.qualifiers import qualifier_facts


def test_a_figure_bounded_the_other_way_is_a_direction_mismatch():
    page = "Without prophylaxis, overall thrombosis rates exceed 50% [1-3]."
    claim = "Without prophylaxis, the overall rate of thrombosis stays under 50%."
    assert [(d.draft, d.page) for d in direction_facts(claim, page)] == [("under 50", "exceed 50")]
    agreed = "Without prophylaxis, the overall thrombosis rate is above 50%."
    assert direction_facts(agreed, page) == []


def test_only_one_of_what_the_page_pairs_is_a_scope_mismatch_unless_the_claim_pairs_it_too():
    page = "Warm condensation (either vertical or lateral) was better than cold condensation."
    claim = "Only warm vertical condensation was better than cold lateral condensation."
    assert [d.page for d in qualifier_facts(claim, page)[0]] == ["vertical or lateral"]
    page = "Hazards were adjusted for age and gender."
    claim = "Hazards were adjusted solely for age and gender."
    assert qualifier_facts(claim, page)[0] == []


def test_all_but_one_where_the_page_says_all_is_a_scope_mismatch():
    page = "As Table 5 shows, our agent outperforms all baselines on the test set."
    claim = "Our agent outperformed all of the baselines except the prompted agent."
    assert [d.page for d in qualifier_facts(claim, page)[0]] == ["all baselines"]
    assert qualifier_facts("Our agent outperformed all the baselines.", page)[0] == []


def test_only_some_of_what_the_page_says_all_of_is_a_scope_mismatch():
    page = "Regular, moderate daily activity is recommended for all patients with heart failure."
    claim = "Daily exercise is recommended only for heart failure patients with mild symptoms."
    assert [d.page[:12] for d in qualifier_facts(claim, page)[0]] == ["all patients"]
    page = "Both the companies A and B showed interest in implementing the model."
    claim = "Only the representatives of company A considered the model practical."
    assert [d.page for d in qualifier_facts(claim, page)[0]] == ["both the companies"]
    # "only" of another thing than the page's "all" says nothing of it
    claim = "Only moderate daily activity is recommended for all heart failure patients."
    assert qualifier_facts(claim, page)[0] == []


def test_a_non_word_said_in_words_and_a_negation_of_another_word_form_agree():
    page = "There are 388 non-test clusters running, with about 24,500 tablet servers."
    claim = "Google ran 388 clusters beyond those used for testing, with 24,500 tablet servers."
    assert compare_facts(claim, page).contradictions == ()
    page = "Like most methods, it does not account for the chemical stability of counterfactuals."
    claim = "It does not consider whether its counterfactuals are chemically stable."
    assert negation_facts(claim, page, page)[0] == []


def test_one_where_the_page_says_many_and_more_where_it_says_savings():
    page = "Predicting a molecule's scent is a multi-label classification task."
    claim = "Predicting scent is a single-label task, one descriptor per molecule."
    assert [d.page for d in qualifier_facts(claim, page)[0]] == ["multi label"]
    assert qualifier_facts("Scent prediction is a multi-label task.", page)[0] == []
    page = "The savings in memory allocated by the partitioned algorithm are very significant."
    claim = "The partitioned algorithm fits the models using much more memory."
    assert [d.kind for d in direction_facts(claim, page)] == ["direction"]
    assert direction_facts("The partitioned algorithm needs much less memory.", page) == []


def test_a_claim_saying_little_of_what_the_page_denies_is_no_answer_to_the_denial():
    page = (
        "It is noteworthy that the interviewed patients do not openly complain about the "
        "limited capacity for diagnosis and treatment at the department, as the staff "
        "respondents did."
    )
    claim = (
        "Like the staff, the interviewed patients openly criticised how little diagnostic and "
        "treatment capacity the department had."
    )
    assert [d.draft for d in negation_facts(claim, page, page)[0]] == ["affirms it"]
    # a claim's "little" still answers a page's "no" of the same words
    page = "There was no capacity for diagnosis and treatment at the department."
    claim = "The department had little capacity for diagnosis and treatment."
    assert negation_facts(claim, page, page)[0] == []
