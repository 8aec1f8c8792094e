"""Reading a DoclingDocument's elements into blocks, on hand-built elements (no Docling)."""

from types import SimpleNamespace

from citeloom.adapters.conversion.docling_reading import page_pieces


def element(text: str, *spans: tuple[int, tuple[int, int]]) -> SimpleNamespace:
    prov = [SimpleNamespace(page_no=page, charspan=span) for page, span in spans]
    return SimpleNamespace(text=text, prov=prov)


def test_a_paragraph_merged_across_a_page_break_is_a_piece_per_page():
    text = "The molecule is fatty. The importance of a C=O bond is supported by Licon."
    merged = element(text, (20, (0, 22)), (21, (23, len(text))))
    assert page_pieces(merged) == [
        (20, "The molecule is fatty."),
        (21, " The importance of a C=O bond is supported by Licon."),
    ]


def test_spans_on_one_page_stay_one_piece_and_a_short_last_span_keeps_the_rest():
    text = "For application to modeling and and the rest of it goes on"
    spans = ((11, (0, 27)), (12, (28, 31)), (12, (32, 35)), (12, (36, 40)))
    assert page_pieces(element(text, *spans)) == [
        (11, "For application to modeling"),
        (12, " and and the rest of it goes on"),
    ]
    assert page_pieces(element("One page.", (3, (0, 9)))) == [(3, "One page.")]
    assert page_pieces(SimpleNamespace(text="No provenance.", prov=[])) == [
        (None, "No provenance.")
    ]
