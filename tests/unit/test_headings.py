from citeloom.domain.headings import numbering_levels, repeated_labels


def test_arabic_numbering_gives_depth():
    assert numbering_levels(["1 Introduction", "2.1. Data", "2.1.3 Cores", "Abstract"]) == [
        1,
        2,
        3,
        None,
    ]


def test_appendix_letters_with_subsections():
    heads = ["A Field protocol", "A.1 Coring", "A.2.1 Slices", "B Data"]
    assert numbering_levels(heads) == [1, 2, 3, 1]
    # a lone capital is a word, not a number, unless appendix numbering is in use
    assert numbering_levels(["A Study of Marshes", "1 Introduction"]) == [None, 1]


def test_ieee_roman_sections_with_lettered_subsections():
    heads = [
        "I. INTRODUCTION",
        "II. RELATED WORK",
        "IV. PROTOCOL",
        "A. Route discovery",
        "B. Upkeep",
    ]
    assert numbering_levels(heads) == [1, 1, 1, 2, 2]
    # without roman sections around it, a lettered heading is left to the layout
    assert numbering_levels(["A. Route discovery"]) == [None]


def test_short_repeated_unnumbered_headings_are_labels_not_sections():
    heads = ["4 Results", "Method", "Method", "Results of the crawler", "Method", "5 Conclusion"]
    assert repeated_labels(heads) == {1, 2, 4}
    # numbered headings and longer titles may repeat (an appendix echoing a section name)
    assert (
        repeated_labels(["1 Data", "1 Data", "A note on the data", "A note on the data"]) == set()
    )
