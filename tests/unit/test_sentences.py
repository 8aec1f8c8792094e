"""Sentence cutting shared by the chunker and quoting: offsets point at the exact text."""

from citeloom.domain.sentences import looks_whole, split_sentences


def test_sentences_are_cut_at_full_stops_and_block_boundaries_exactly_as_written():
    text = (
        "the tail of a cut sentence. Cores were dated (Smith 2020).  Rates rose 6.8 mm per year! "
        'He said "no." Then left.\n3.1 Accretion rates\nA last one?'
    )
    got = split_sentences(text)
    assert [s.text for s in got] == [
        "the tail of a cut sentence.",
        "Cores were dated (Smith 2020).",
        "Rates rose 6.8 mm per year!",
        'He said "no."',
        "Then left.",
        "3.1 Accretion rates",
        "A last one?",
    ]
    assert all(text[s.start : s.end] == s.text for s in got)


def test_a_quotable_sentence_starts_and_ends_like_one():
    assert looks_whole("Restored marshes accreted 6.8 mm per year.")
    assert not looks_whole("accreted 6.8 mm per year after the breach.")  # an overlap's tail
    assert not looks_whole("3.1 Accretion rates")  # a heading
    assert not looks_whole("Too short.")
