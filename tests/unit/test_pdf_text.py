"""Text as a PDF's text layer has it, read as a reader does: signs, markers, numbers, units."""

import pytest

from citeloom.domain.claim_numbers import find_number
from citeloom.domain.quantities import quantities
from citeloom.domain.text import comparable_text, comparable_words
from citeloom.domain.units import read_unit


@pytest.mark.parametrize(
    ("layer", "read"),
    [
        ("a change of \u22120.5 units", "a change of -0.5 units"),  # a minus sign
        ("at 3 x 10 and 2\u00b710", "at 3\u00d710 and 2\u00d710"),  # multiplication signs
        ("0.5 g\u00b7L\u22121", "0.5 g L-1"),  # a product of units
        ("Ki = 11.21 +\n\u2212 0.74 nM", "Ki = 11.21 \u00b10.74 nM"),  # \u00b1 as "+ \u2212"
        ("12 per cent of", "12% of"),
        ("aged from 2e76 years", "aged from 2-76 years"),  # an en dash the layer wrote "e"
        ("a rate of 1e-5 and 6.02e23 and 5e2", "a rate of 1e-5 and 6.02e23 and 5e2"),
        ("no association with dementia12 and", "no association with dementia and"),
        ("life events.12,13 The study", "life events. The study"),  # a marker lost its raise
        ("the \ufb01eld-\ncorrelation", "the fieldcorrelation"),  # ligature, line-end hyphen
        ("soft\u00adhyphen and thin\u2009space", "softhyphen and thin space"),
    ],
)
def test_comparable_text_reads_the_text_layer_as_a_reader_does(layer, read):
    assert comparable_text(layer) == read


def test_names_with_digits_keep_them():
    assert comparable_words("H100 GPUs and ResNet-50") == ["h100", "gpus", "and", "resnet", "50"]


@pytest.mark.parametrize(
    ("text", "value", "dims"),
    [
        ("12.88 g/l", 12.88, (("mass", 1), ("volume", -1))),
        ("12.88 g L-1", 12.88, (("mass", 1), ("volume", -1))),
        ("3 mg/dL", 3.0, (("mass", 1), ("volume", -1))),
        ("2 grams per litre", 2.0, (("mass", 1), ("volume", -1))),
        ("500 ms", 500.0, (("time", 1),)),
        ("6.8 millimetres", 6.8, (("length", 1),)),
        ("57.5%", 57.5, (("share", 1),)),
        ("12 MB", 12.0, (("data", 1),)),
    ],
)
def test_units_written_out_or_abbreviated_are_one_unit(text, value, dims):
    (only,) = quantities(text)
    assert only.value == pytest.approx(value)
    assert only.unit is not None and only.unit.dims == dims


def test_mg_per_decilitre_is_a_hundredth_of_a_gram_per_litre():
    unit, _ = read_unit("mg/dL", 0)
    assert unit is not None and unit.factor == pytest.approx(0.01)


def test_a_claims_number_is_found_however_the_page_groups_its_digits():
    (claim,) = quantities("67,562 positive instances")
    for page in ("67, 562 positive", "67 562 positive", "67\u2009562 positive", "67.562 positive"):
        assert find_number(claim, page).stated is not None, page
    assert find_number(claim, "67, 563 positive").stated is None


def test_figure_and_reference_numbers_are_left_out():
    assert [q.value for q in quantities("as in Table 2 and Fig. 3 [12], 40 cores")] == [40.0]


def test_a_range_gives_both_ends_with_the_unit_of_its_end():
    got = [(q.value, q.unit.text if q.unit else None) for q in quantities("between 0-2 ns")]
    assert got == [(0.0, "ns"), (2.0, "ns")]
