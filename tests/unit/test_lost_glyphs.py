"""Characters a PDF's text layer lost: a ligature read as U+FFFD mended from the words the
document and a word list know, a replacement character put back by what the glyph names read,
and BMJ's "=" that the text layer spells "¼"."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from citeloom.adapters.conversion.docling_reading import ligature_words, mend_lost_ligatures
from citeloom.adapters.conversion.glyph_text import mend_lines, read_boxes
from citeloom.domain.ligatures import mend_ligatures
from citeloom.domain.models import Block, BlockKind
from citeloom.domain.text import normalise_text

R = "\ufffd"


def words(*known: str):
    return lambda: frozenset(known)


def test_a_lost_ligature_is_read_as_the_word_the_document_spells_elsewhere():
    texts = [f"The {R}le was closed.", "Each file holds rows.", f"Rows are {R}ltered."]
    mended = mend_ligatures(texts, words("filter"))
    assert mended == ["The file was closed.", "Each file holds rows.", "Rows are filtered."]


def test_the_word_list_knows_a_word_in_another_form():
    mended = mend_ligatures([f"It is ef{R}cient and speci{R}ed in {R}les."], words("efficient"))
    # "specified" from "specify" and "files" from "file" are not in this list: left as they are
    assert mended == [f"It is efficient and speci{R}ed in {R}les."]
    listed = mend_ligatures([f"speci{R}ed in {R}les, {R}rst"], words("specify", "file", "first"))
    assert listed == ["specified in files, first"]


def test_no_letters_are_invented_where_no_word_is_known():
    texts = [f"8 {R} 45 and P {R} 0.05", f"the {R} distribution, a qu{R}z, time{R}"]
    assert mend_ligatures(texts, words("file", "first")) == texts
    # a dash lost before a capital is no ligature, though "flan" is a word
    assert mend_ligatures([f"made live {R}An engineering"], words("flan")) == [
        f"made live {R}An engineering"
    ]


def test_two_known_words_the_document_does_not_choose_between_are_left():
    # "fiat" and "flat" are both words; the document spells neither
    assert mend_ligatures([f"a {R}at rate"], words("fiat", "flat")) == [f"a {R}at rate"]
    chosen = mend_ligatures([f"a {R}at rate", "a flat rate"], words("fiat", "flat"))
    assert chosen == ["a flat rate", "a flat rate"]


def test_the_shipped_word_list_mends_a_paper_that_spells_no_word_whole():
    blocks = [
        Block(
            f"The {R}rst {R}les were ef{R}cient and signi{R}cant, {R}ve in all.", BlockKind.TEXT, 1
        )
    ]
    assert [b.text for b in mend_lost_ligatures(blocks)] == [
        "The first files were efficient and significant, five in all."
    ]
    assert "file" in ligature_words() and "fi" not in ligature_words()


@pytest.mark.parametrize(
    ("layer", "read"),
    [
        ("(22.35 g/l, p¼0.51). The", "(22.35 g/l, p=0.51). The"),
        ("horizontal lines¼95% CI.", "horizontal lines=95% CI."),
        ("et al 32 (Q¼23.8) in", "et al 32 (Q=23.8) in"),
        ("x ¼ -0.3 and n ¼ 12", "x = -0.3 and n = 12"),
        ("1¼ inches and ¼ of them", "11⁄4 inches and 1⁄4 of them"),  # a quarter stays one
    ],
)
def test_an_equals_sign_the_text_layer_spells_as_a_quarter_is_read_as_equals(layer, read):
    assert normalise_text(layer) == read


@dataclass
class Rect:
    box: tuple[float, float, float, float]

    def to_bounding_box(self):
        l, t, r, b = self.box

        @dataclass
        class Box:
            l: float
            t: float
            r: float
            b: float

        return Box(l, t, r, b)


@dataclass
class Line:
    text: str
    rect: Rect


def test_readings_go_into_the_line_at_the_place_of_each_replacement_character():
    line = Line(f"The {R}le is {R}nal.", Rect((10, 100, 200, 112)))
    other = Line(f"a {R}ow", Rect((10, 120, 200, 132)))
    chars = [((30, 101, 36, 111), "fi"), ((80, 101, 86, 111), "fi"), ((20, 121, 26, 131), "fl")]
    assert mend_lines([line, other], chars) == 3
    assert (line.text, other.text) == ("The file is final.", "a flow")


def test_a_line_whose_characters_do_not_pair_with_its_replacement_characters_is_left():
    line = Line(f"The {R}le is {R}nal.", Rect((10, 100, 200, 112)))
    assert mend_lines([line], [((30, 101, 36, 111), "fi")]) == 0
    assert line.text == f"The {R}le is {R}nal."


def test_what_pdfium_cannot_read_either_is_no_reading():
    glyphs = [(33.0, 106.0, "f"), (33.5, 106.0, "i"), (53.0, 106.0, R), (73.0, 106.0, "\x02")]
    boxes = [(30, 101, 36, 111), (50, 101, 56, 111), (70, 101, 76, 111), (90, 101, 96, 111)]
    assert read_boxes(glyphs, boxes) == ["fi", None, None, None]


@pytest.mark.parametrize(
    ("layer", "read"),
    [
        ("as shown by R¨ as¨ anen [17]", "as shown by Räsänen [17]"),
        ("the Lemaˆıtre-Tolman model", "the Lemaître-Tolman model"),
        ("Erd˝ os and Schr¨odinger", "Erdős and Schrödinger"),
        ("an angle of 2.2 ˚A", "an angle of 2.2 \u030aA"),  # no letter before: left to units
        ("the estimate ˆ y of y", "the estimate ˆ y of y"),  # a hat on its own is math
    ],
)
def test_an_accent_set_before_its_letter_is_put_back_on_it(layer, read):
    assert normalise_text(layer) == read
