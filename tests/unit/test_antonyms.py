"""A claim that puts a word where its sentence has the opposite ("large" for "small"), read
with WordNet's antonyms as citeloom ships them: only in the same slot of the two sentences,
never for a word negated on one side only."""

from __future__ import annotations

from citeloom.adapters.lexicon import antonyms
from citeloom.domain.antonyms import NO_ANTONYMS, ORDINALS, opposed, opposites, read_antonyms


def _pairs(claim: str, page: str) -> list[tuple[str, str]]:
    return [(d.draft, d.page) for d in opposed(claim, page, antonyms())]


def test_an_antonym_in_the_same_slot_is_a_reversed_fact():
    claim = (
        "Rodriguez Montoya and Matos show that Bose-Einstein statistics have a large, clearly "
        "visible effect on the CMB, equivalent to adding non-relativistic matter."
    )
    page = (
        "We show that the effect of the Bose-Einstein statistics is small albeit perceptible, "
        "and is equivalent to an increase of non-relativistic matter."
    )
    assert _pairs(claim, page) == [("large", "small")]
    # comparatives are read as their adjective
    assert _pairs(
        "Precision was higher than recall for both languages.",
        "For both languages, precision was lower than recall.",
    ) == [("higher", "lower")]


def test_an_antonym_elsewhere_in_the_sentence_or_negated_is_no_reversal():
    # "general" qualifies the models in a title, "particular" the earlier solutions
    claim = (
        "Solutions of the fifth-order shallow water-wave model that were published earlier "
        "are particular cases obtained by restricting the model parameters."
    )
    page = "Exact Solitary-wave Solutions for the General Fifth-order Shallow Water-wave Models"
    assert _pairs(claim, page) == []
    # "unavailable" is "not available"
    claim = "Chubby unavailability left some Bigtable data unavailable for 0.0047% of hours."
    page = "Some data stored in Bigtable was not available due to Chubby unavailability."
    assert _pairs(claim, page) == []
    # the claim's word is on the page as well: it says both, no reversal of one
    claim = "Larger disks help, and small disks hurt."
    page = "Small disks hurt, and larger disks help."
    assert _pairs(claim, page) == []


def test_a_sequence_in_time_is_no_reversal_and_the_word_list_reads_comments():
    claim = "The seeds were kept cold for six weeks before planting."
    page = "After six weeks of cold, the seedlings were planted."
    assert _pairs(claim, page) == []
    read = read_antonyms(["# a comment", "large small", "", "hot cold  # trailing"])
    assert read["small"] == frozenset({"large"}) and read["cold"] == frozenset({"hot"})
    assert opposed("a large effect", "a small effect", NO_ANTONYMS) == ()  # no list, no opinion


def test_a_slot_is_beside_a_shared_word_not_anywhere_after_it():
    # "small" qualifies the age of the Universe, "large" the amplitude: both follow "model",
    # one of them far from it
    claim = "In the modified model the bang time function has a large amplitude."
    page = "Specifically, the age of the Universe in this model becomes unrealistically small."
    assert _pairs(claim, page) == []
    # a comparison said with a preposition: "below" the published rates is lower than them
    claim = "The risks were somewhat below the rates that had been published before."
    page = "These values are slightly higher than the previously published rates of 3.1%."
    assert _pairs(claim, page) == [("below", "higher")]


def test_a_rank_in_the_same_slot_is_another_value():
    page = "Sepsis is the third leading cause of death among patients admitted to the ward."
    claim = "Among ward admissions, sepsis ranks second as a cause of death."
    assert [(d.kind, d.draft, d.page) for d in opposed(claim, page, ORDINALS, "number")] == [
        ("number", "second", "third")
    ]
    assert opposed("Sepsis is the 3rd leading cause of death on the ward.", page, ORDINALS) == ()


def test_a_unit_named_in_words_in_the_same_slot_is_another_unit():
    page = "Each node carries a tiny processor and a few kilobytes of storage memory."
    claim = "A node has a small processor and only a few megabytes of storage memory."
    assert [(d.kind, d.draft, d.page) for d in opposites(claim, page, NO_ANTONYMS)] == [
        ("unit", "megabytes", "kilobytes")
    ]
    # "second" is a rank as often as a unit: never read against minutes
    page = "The second exception took approximately 6 hours."
    claim = "Most steps took under four minutes, the slowest about 6 hours."
    assert opposites(claim, page, NO_ANTONYMS) == ()
