import uuid

import pytest

from citeloom.domain.citation import citation_label
from citeloom.domain.ids import chunk_id, doc_id_from_sha256, sha256_of_file
from citeloom.domain.matching import (
    TitleCandidate,
    decide_title_match,
    find_arxiv_ids,
    find_dois,
    normalise_doi,
)
from citeloom.domain.text import fold_for_match, normalise_text, trim


@pytest.mark.parametrize(
    ("start", "end", "label"),
    [
        (12, 12, "[@smith2020, p. 12]"),
        (3, 5, "[@smith2020, pp. 3-5]"),
        (None, None, "[@smith2020]"),
    ],
)
def test_citation_label(start, end, label):
    assert citation_label("smith2020", start, end) == label


def test_unmatched_document_is_labelled_as_such():
    assert citation_label(None, 4, 4) == "[no reference match, p. 4]"


def test_chunk_id_is_deterministic_and_model_specific():
    a = chunk_id("d1", ("1 Intro",), 1, 2, "m1", 0)
    assert a == chunk_id("d1", ("1 Intro",), 1, 2, "m1", 0)
    assert uuid.UUID(a).version == 5
    assert a != chunk_id("d1", ("1 Intro",), 1, 2, "m2", 0)
    assert a != chunk_id("d1", ("1 Intro",), 1, 3, "m1", 0)
    assert a != chunk_id("d1", ("1 Intro",), 1, 2, "m1", 1)


def test_doc_id_comes_from_content(tmp_path):
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    a.write_bytes(b"%PDF-1.4 same bytes")
    b.write_bytes(b"%PDF-1.4 same bytes")
    assert doc_id_from_sha256(sha256_of_file(a)) == doc_id_from_sha256(sha256_of_file(b))
    b.write_bytes(b"%PDF-1.4 other bytes")
    assert doc_id_from_sha256(sha256_of_file(a)) != doc_id_from_sha256(sha256_of_file(b))


def test_normalise_text_expands_ligatures_and_joins_line_end_hyphens():
    assert normalise_text("ﬁnite ﬀ  eﬀect") == "finite ff effect"
    assert normalise_text("accele-\nration of the uni-\n verse") == "acceleration of the universe"
    assert normalise_text("soft\u00adhyphen") == "softhyphen"


def test_fold_for_match_ignores_case_accents_dashes_and_punctuation():
    assert fold_for_match("Mühlenberg – “Quoted”: Title!") == fold_for_match(
        "muhlenberg - quoted title"
    )


def test_trim_cuts_at_a_word():
    assert trim("one two three four", 9) == "one two …"


@pytest.mark.parametrize(
    ("raw", "doi"),
    [
        ("10.1088/1475-7516/2008/10/003", "10.1088/1475-7516/2008/10/003"),
        ("https://doi.org/10.1109/DSDE.2010.49", "10.1109/dsde.2010.49"),
        ("doi:10.1021/ACS.JCTC.2C01235.", "10.1021/acs.jctc.2c01235"),
        ("DOI 10.1000/xyz)", "10.1000/xyz"),
        ("10/fqd6hj", "10/fqd6hj"),
        ("not a doi", None),
    ],
)
def test_normalise_doi(raw, doi):
    assert normalise_doi(raw) == doi


def test_find_dois_in_running_text():
    text = "Online at stacks.iop.org doi:10.1088/1475-7516/2008/10/003 and (see 10.1000/ABC.1)."
    assert find_dois(text) == ["10.1088/1475-7516/2008/10/003", "10.1000/abc.1"]


def cand(key, score, authors=0.0, year=False, known=True) -> TitleCandidate:
    return TitleCandidate(key, score, authors, known, year)


def test_title_decision_needs_threshold_and_margin():
    assert decide_title_match([cand("a", 0.95, 1.0), cand("b", 0.5)]).accepted.citekey == "a"
    assert decide_title_match([cand("a", 0.7, 1.0)]).problem == "MetadataMissing"
    assert decide_title_match([]).problem == "MetadataMissing"
    tie = [cand("a", 0.92, 1.0, True), cand("b", 0.9, 1.0, True)]
    assert decide_title_match(tie).problem == "MetadataAmbiguous"


def test_a_tie_is_broken_only_by_strictly_better_page_one_evidence():
    conference = cand("smith2019deep", 1.0, authors=1.0, year=False)
    journal = cand("smith2020deep", 1.0, authors=1.0, year=True)
    assert decide_title_match([conference, journal]).accepted.citekey == "smith2020deep"
    other_authors = cand("lee2009same", 1.0, authors=0.0)
    ours = cand("wang2008same", 1.0, authors=1.0)
    assert decide_title_match([other_authors, ours]).accepted.citekey == "wang2008same"


def test_a_title_whose_authors_are_not_on_the_page_is_not_accepted():
    assert decide_title_match([cand("x", 0.99, authors=0.0)]).problem == "MetadataAmbiguous"
    # a page without text (a scan) contradicts nothing
    lonely = decide_title_match([cand("x", 0.99, authors=0.0)], page_has_names=False)
    assert lonely.accepted.citekey == "x"
    assert decide_title_match([cand("x", 0.99, known=False)]).accepted.citekey == "x"


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("arXiv:0807.3577v2 [astro-ph] 21 Oct 2008", ["0807.3577"]),
        ("ArXiv ePrint: 0807.3577", ["0807.3577"]),
        ("see https://arxiv.org/abs/2501.10120v1.", ["2501.10120"]),
        ("arXiv:hep-th/9901001", ["hep-th/9901001"]),
        ("no identifier here 1234.5678", []),
    ],
)
def test_find_arxiv_ids(text, ids):
    assert find_arxiv_ids(text) == ids
