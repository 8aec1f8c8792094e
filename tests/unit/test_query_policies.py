"""Pure query policies: phrase syntax, diversity, confidence."""

import pytest

from citeloom.domain.abstention import (
    TUNED_SPLIT,
    confidence,
    content_terms,
    covered_terms,
    evidence,
    idf,
)
from citeloom.domain.diversity import diversify, overlap, shingles
from citeloom.domain.query_syntax import parse_query
from citeloom.services.query import contains_phrase


def test_quoted_phrases_are_found_in_straight_and_curly_quotes():
    parsed = parse_query('carbon "managed realignment" and “tidal prism” rates')
    assert parsed.phrases == ("managed realignment", "tidal prism")
    assert parsed.text == "carbon managed realignment and tidal prism rates"
    assert parse_query("no quotes here").phrases == ()


def test_phrases_match_after_normalisation_only_as_whole_words():
    text = "The eﬀect of Managed realign-\nment on state-of-the-art sites"
    assert contains_phrase(text, "effect of managed realignment")
    assert contains_phrase(text, "STATE OF THE ART")
    assert not contains_phrase(text, "managed realign")


def test_near_duplicates_collapse_into_the_best_and_per_doc_caps():
    items = [
        ("d1", "restored sites accreted a mean of 6.8 millimetres of sediment per year"),
        ("d2", "restored sites accreted a mean of 6.8 millimetres of sediment per year here"),
        ("d1", "carbon density rose with time since breaching at every restored site"),
        ("d1", "the elevation surveys before breaching showed lower fields everywhere"),
        ("d3", "quiet hours reduced interruptions during the protected hours"),
    ]
    kept = diversify(items, lambda x: x[1], lambda x: x[0], per_doc=2)
    assert [x[0] for x in kept] == ["d1", "d1", "d3"]
    assert kept[0] == items[0]  # the best-ranked copy survives
    assert len(diversify(items, lambda x: x[1], lambda x: x[0])) == 4


def test_overlap_is_containment_of_the_shorter_passage():
    a = shingles("one two three four five six seven eight")
    b = shingles("one two three four five six seven eight nine ten eleven twelve")
    assert overlap(a, b) == 1.0
    assert overlap(a, shingles("completely different words in this other sentence")) == 0.0


def test_confidence_rewards_covering_rare_terms():
    terms = content_terms("What accretion rate did the restored marshes reach?")
    assert terms == ["accretion", "rate", "restored", "marshes", "reach"]
    weights = {"accretion": idf(100, 2), "marshes": idf(100, 50)}
    assert weights["accretion"] > weights["marshes"]
    covered = covered_terms(["accretion", "marshes"], ["Sites accreted fast; accretions of salt"])
    assert covered == {"accretion"}
    assert covered_terms(["marshes"], ["a salt marsh"]) == {"marshes"}
    high = confidence(weights, {"accretion"}, 0.7)
    low = confidence(weights, {"marshes"}, 0.7)
    assert 0 <= low < high <= 1
    assert confidence({}, set(), 0.6) == pytest.approx(1.0)
    assert confidence({}, set(), 0.1) == 0.0


def test_confidence_puts_the_tuned_split_at_one_half_and_keeps_the_order():
    weights = {"accretion": idf(100, 2), "marshes": idf(100, 50)}
    cases = [({"accretion"}, s) for s in (0.1, 0.25, 0.3, 0.45, 0.7)] + [
        ({"marshes"}, s) for s in (0.2, 0.35, 0.5)
    ]
    raw = [evidence(weights, covered, s) for covered, s in cases]
    shown = [confidence(weights, covered, s) for covered, s in cases]
    assert sorted(range(len(raw)), key=raw.__getitem__) == sorted(
        range(len(shown)), key=shown.__getitem__
    )
    # with no content words the evidence is the scaled cosine alone: 0.2 -> 0, 0.6 -> 1
    assert confidence({}, set(), 0.2 + 0.4 * TUNED_SPLIT) == pytest.approx(0.5)
