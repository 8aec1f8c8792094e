"""Facts a stating sentence holds with its neighbours: the end of a sentence the text layer cut
in two, the second fact of a claim in the next sentence, a list read as a whole, a name the
writer spells out that the paper abbreviates. Each case is a miscitation a careless author
makes, or a correct restatement a checker must not call wrong."""

from __future__ import annotations

from citeloom.adapters.lexicon import antonyms
from citeloom.domain.abbreviations import abbreviations
from citeloom.domain.alignment import Alignment, PageText, Span, claim_content, facts_of
from citeloom.domain.bindings import misbound
from citeloom.domain.claims import claim_numbers, compare_facts, negation_facts
from citeloom.domain.name_swaps import swapped_names
from citeloom.domain.qualifiers import qualifier_facts
from tests.unit.test_alignment import outcome


def test_a_sentence_cut_by_a_line_break_keeps_its_negation():
    page = PageText(
        6,
        (
            ("text", "Patients with refractory anaemia should be tested for the infection."),
            (
                "text",
                "A strategy of population screening and treatment of H pylori to prevent "
                "anaemia in",
            ),
            ("text", "Europe is not currently recommended."),
        ),
    )
    claim = (
        "The authors recommend population screening and treatment of H pylori to prevent "
        "anaemia in Europe."
    )
    assert outcome(claim, page)[0] == "mismatch"


def test_values_in_one_list_are_the_list_s_and_bind_to_no_nearest_name():
    page = (
        "The LC50 values were 3.1, 4.2, 5.6 and 0.4 µg/ml for the ether, ethanol and water "
        "fractions and the drug control, respectively."
    )
    claim = (
        "The drug control gave an LC50 of 0.4 µg/ml, against 3.1, 4.2 and 5.6 µg/ml for the "
        "ether, ethanol and water fractions."
    )
    assert misbound(claim, page, claim_numbers(claim)) == []
    # values apart, each beside its own word, still bind
    page = "The mean LC50 was 3.1 µg/ml in the Ether arm versus 5.6 µg/ml in the Water arm."
    claim = "The Water arm gave 3.1 µg/ml on average."
    assert [d.page for d in misbound(claim, page, claim_numbers(claim))] == ["5.6 μg/ml (water)"]


def test_a_group_set_apart_without_a_condition_is_not_denied_by_those_who_got_it_later():
    page = "During follow-up, 81 adults developed diabetes."
    claim = "Of 940 adults without diabetes at baseline, 81 went on to develop diabetes."
    against, missing = negation_facts(claim, page, page)
    assert against == [] and [d.kind for d in missing] == ["negation"]
    # a plain "without" the page does deny is still a contradiction
    page = "The wound healed, but an infection developed in 12 patients."
    claim = "The wound healed without infection in every patient."
    assert [d.kind for d in negation_facts(claim, page, page)[0]] == ["negation"]


def test_how_many_of_a_group_is_held_to_the_next_sentence_that_speaks_of_it():
    core = "Dynamic validation showed accurate results in half the time of AHP."
    passage = f"{core} Representatives of both the companies rated it above AHP for efficiency."
    claim = (
        "Dynamic validation gave accurate results in half the time of AHP, though only one of "
        "the two companies rated it above AHP for efficiency."
    )
    assert [d.page for d in compare_facts(claim, passage, core).contradictions] == [
        "both the companies"
    ]
    agreed = claim.replace("only one of the two companies", "both companies")
    assert compare_facts(agreed, passage, core).contradictions == ()


def test_a_span_of_time_in_words_is_a_unit():
    page = "PE is the third leading cause of death in patients who survive the first day."
    claim = "Among patients who live past their first week, PE ranks third among causes of death."
    assert [(d.kind, d.page) for d in qualifier_facts(claim, page)[0]] == [("unit", "first day")]
    kept = claim.replace("first week", "first day")
    assert qualifier_facts(kept, page)[0] == []


def test_a_name_written_out_is_the_abbreviation_the_paper_defines():
    forms = abbreviations("Predictions from trained graph neural networks (GNNs) are explained.")
    page = "We implemented and trained an RNN model in Keras to predict solubilities."
    claim = "A graph neural network built in Keras was trained to predict solubility."
    assert [(d.draft, d.page) for d in swapped_names(claim, page, (), forms)] == [("GNNS", "RNN")]
    page = "We implemented and trained a GNN model in Keras to predict solubilities."
    assert swapped_names(claim, page, (), forms) == ()
    # a long form the claim abbreviates itself keeps its own abbreviation as the name
    forms = abbreviations("Trauma raises the risk of a deep venous thrombosis (DVT) at once.")
    page = "Trauma is a risk factor for the development of a deep venous thrombosis (DVT)."
    claim = "Trauma is a risk factor for the development of a deep venous thrombosis (WH)."
    assert [(d.draft, d.page) for d in swapped_names(claim, page, (), forms)] == [("WH", "DVT")]


def test_a_value_the_page_lists_respectively_given_to_another_item_is_moved():
    page = (
        "The LC50 values were 3.1, 4.2, 5.6 and 0.4 µg/ml for the ether, ethanol, water "
        "fractions and the drug control, respectively."
    )
    moved = "In the assay, the ethanol fraction gave an LC50 of 3.1 µg/ml."
    assert [(d.draft, d.page) for d in compare_facts(moved, page).contradictions] == [
        ("3.1 μg/ml (ethanol)", "4.2 (ethanol)")
    ]
    kept = "In the assay, the ether fraction gave an LC50 of 3.1 µg/ml."
    assert compare_facts(kept, page).contradictions == ()
    # a claim writing the list the same way, in its own words, moves nothing
    listed = "LC50s of 3.1, 4.2 and 5.6 µg/ml were found for the ether, ethanol and water parts."
    assert compare_facts(listed, page).contradictions == ()


def test_a_word_of_a_name_is_no_opposite():
    from citeloom.adapters.lexicon import antonyms
    from citeloom.domain.antonyms import opposites

    claim = "Photons from two separate quantum dots interfered."
    page = "Photons from two Joint Quantum dots interfered."  # a name, as an affiliation writes it
    assert opposites(claim, page, antonyms()) == ()
    page = "Photons from two joint quantum dots interfered."
    assert [d.page for d in opposites(claim, page, antonyms())] == ["joint"]


def test_an_opposite_beside_a_core_that_says_the_claim_s_word_is_a_contrast_not_a_denial():
    core = (
        "A lower value of mobility factor means that the node is less mobile and more of a "
        "candidate for being the zone head."
    )
    contrast = "On the contrary, a higher value renders a node inconsistent as a zone head."
    claim = "The node with the lowest mobility factor value is the best candidate for zone head."
    content = claim_content(claim, {})

    def reversed_words(core: str, *sentences: str) -> list[tuple[str, str]]:
        span = Span(2, sentences, True)
        found = Alignment(span, 1.0, 1.0, 0.9, 0.9, core, 0.9)
        facts = facts_of(content, found, antonyms=antonyms())
        return [(d.draft, d.page) for d in facts.contradictions if d.kind == "direction"]

    assert reversed_words(core, core, contrast) == []
    # the opposite in the sentence stating the claim is still a contradiction
    assert reversed_words(contrast, core, contrast)
