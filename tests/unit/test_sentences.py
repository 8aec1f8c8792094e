"""Sentence cutting shared by the chunker and quoting: offsets point at the exact text."""

from citeloom.domain.sentences import looks_whole, run_on, split_sentences


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


def test_german_abbreviations_ordinals_and_quotes_do_not_end_a_sentence():
    text = (
        "Getreide, z. B. Weizen, und u. a. Mais Bodenerosion erleiden, vgl. Abb. 3 und S. 14. "
        "Am 3. Mai begann die Messung, die im 19. Jahrhundert endete. "
        "Über die Hälfte der Böden war betroffen (Müller et al. 2019). "
        "„Erosion ist ein Problem.“ Danach folgt Kap. 4. See Fig. 2 and Eq. 3, e.g. The rest. "
        "Siehe Abschnitt 3. Die Ergebnisse folgen."
    )
    got = [s.text for s in split_sentences(text)]
    assert got == [
        "Getreide, z. B. Weizen, und u. a. Mais Bodenerosion erleiden, vgl. Abb. 3 und S. 14.",
        "Am 3. Mai begann die Messung, die im 19. Jahrhundert endete.",
        "Über die Hälfte der Böden war betroffen (Müller et al. 2019).",
        "„Erosion ist ein Problem.“",
        "Danach folgt Kap. 4.",
        "See Fig. 2 and Eq. 3, e.g. The rest.",
        "Siehe Abschnitt 3.",
        "Die Ergebnisse folgen.",
    ]
    assert looks_whole("Über die Hälfte der Böden war betroffen.")
    assert looks_whole("„Erosion ist ein großes Problem“, sagte sie.")


def test_compounds_stay_whole_across_a_line_end():
    from citeloom.domain.text import normalise_text

    assert normalise_text("Die Bö-\nden sind ver-\nändert") == "Die Böden sind verändert"
    # a hyphenated compound keeps its hyphen and stays one word
    assert normalise_text("CO2-\nEmissionen und Nord- \n Süd") == "CO2-Emissionen und Nord-Süd"


def test_a_block_cut_mid_sentence_runs_on_into_the_next():
    blocks = ["Gaps were measured in the", "northern marshes. Rates rose.", "Sites were restored"]
    assert run_on(blocks) == [
        "Gaps were measured in the northern marshes. Rates rose.",
        "Sites were restored",
    ]
    # a hyphenated word is made whole as normalise_text makes it; a compound keeps its hyphen
    assert run_on(["the deca-", "dienal scent", "the CO2-", "neutral fuel"]) == [
        "the decadienal scent the CO2-neutral fuel"
    ]
    # a finished sentence, or a block that starts like one, stays apart
    assert run_on(["Rates rose.", "and fell", "Rates rose (Fig. 2)", "Then fell."]) == [
        "Rates rose.",
        "and fell",
        "Rates rose (Fig. 2)",
        "Then fell.",
    ]
