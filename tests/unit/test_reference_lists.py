"""A paper's reference list is never evidence: its entries recognised by heading and shape.

The entries are lines of real reference lists of the shared corpus (as Docling's conversion
gives them); the body sentences cite the way papers do and must never be taken for entries.
"""

from __future__ import annotations

import pytest

from citeloom.domain.reference_lists import (
    in_reference_list,
    is_reference_entry,
    is_reference_heading,
    reference_blocks,
)

ENTRIES = [
    # Vancouver (BMC, medicine): authors with initials, year, volume:pages
    "Najarian KE, D'Astino R, Pilcher DB: Five-year follow-up of prophylactic vena cava "
    "filters in high-risk trauma patients. Arch Surg 1998, 133:406-12.",
    "2. Zimmermann MB, Hurrell RF. Nutritional iron deficiency. Lancet 2007;370:511e20.",
    "1. Kudsk KA, Fabian TC, Baum S, Gold RE, Mangiante E, Voeller G: Silent deep",
    # a venue line with no author on it
    "Validation. In online proceedings of CLEF 2007 Working Notes, ISBN: 2-912335-31-0, "
    "September 2007, Budapest, Hungary.",
    # IEEE
    '[1] E. Braunwald, "Shattuck lecture: cardiovascular medicine',
    'D. Naylor, "Discharge planning and home follow-up of the elderly patient with heart '
    'failure," The Nursing Clinics of North America, vol. 33, no. 3, pp. 497-513, 1998.',
    # physics, small capitals (OSDI), APA, ACL
    "[1] C.-Y. Lu et al., Phys. Rev. B 81, 035332 (2010)",
    "[3] BANGA, G., DRUSCHEL, P., AND MOGUL, J. C. Re-",
    "Tregear, G. and Corvol, P. (1988) Two putative active centers in human angiotensin "
    "I-converting enzyme revealed by molecular cloning. Proc. Natl. Acad. Sci. U.S.A. 85, "
    "9386-9390",
    "lin, and Christopher Pal. 2024. Litllm: A toolkit for scientific literature review. "
    "arXiv preprint arXiv:2402.01788.",
    "affects genomic analysis. Molecular Biology and Evolution 30(3):642-653 DOI "
    "10.1093/molbev/mss256.",
]

BODY = [
    "Phylogenetic trees were built with MUSCLE (Edgar, 2004) and two other methods.",
    "Smith et al. (2004) reported 12 sites, whereas Jones and Lee (2005) found 8.",
    "As in [12], the protocol discovers routes on demand [3, 4].",
    "Rogers FB and colleagues found that filters reduced pulmonary embolism (p < 0.05).",
    "Restored marshes accreted sediment at 6.8 mm per year after the breach.",
    "1. Accuracy, precision and recall were measured on the held-out set.",
    "The 2008 campaign of CLEF added a task on answer validation, as described in Section 3.",
]


@pytest.mark.parametrize("entry", ENTRIES)
def test_entries_of_real_reference_lists_are_recognised_by_their_shape(entry):
    assert is_reference_entry(entry)


@pytest.mark.parametrize("sentence", BODY)
def test_a_body_sentence_that_cites_is_not_an_entry(sentence):
    assert not is_reference_entry(sentence)


def test_a_long_paragraph_with_one_doi_is_body_text():
    paragraph = (
        "Restored marshes accreted sediment at 6.8 mm per year after the breach, far more "
        "than the reference marshes of the same estuary, whose surfaces rose by 2.1 mm per "
        "year over the same decade; the difference held at every site we cored, whatever the "
        "elevation of the core, and the cores and their dates are deposited with the data of "
        "this paper. The full series is available (doi:10.5555/clx.2023.0417) for reuse."
    )
    assert not is_reference_entry(paragraph)


@pytest.mark.parametrize(
    "heading",
    ["References", "VII. REFERENCES", "References:", "Literaturverzeichnis", "Works Cited"],
)
def test_reference_headings(heading):
    assert is_reference_heading(heading)


def test_a_heading_that_mentions_references_is_not_one():
    assert not is_reference_heading("References to prior work in the discussion")
    assert not is_reference_heading("3 Results")


def test_a_chunk_under_a_reference_heading_is_in_the_list_until_an_appendix():
    assert in_reference_list(("Bigtable", "References"))
    # a conversion that made an entry into a heading of its own
    assert in_reference_list(("References", "Baumeister, R. F., Bratslavsky, E., and"))
    assert in_reference_list(("31. Haentjens P: Thromboembolic prophylaxis in orthopaedic",))
    assert not in_reference_list(("References", "A.1. Empirical comparison of algorithms"))
    assert not in_reference_list(("Appendix B", "Proofs"))
    assert not in_reference_list(("3 Results", "3.1 Accretion rates"))


def test_blocks_after_a_reference_heading_are_entries_until_a_numbered_section():
    blocks = [
        ("text", "Restored marshes accreted sediment at 6.8 mm per year."),
        ("heading", "References"),
        ("text", "Godfrey K (1983). Compartmental Models and Their Application."),
        ("text", "Academic Press, London."),
        ("heading", "A.1. Empirical comparison of partitioned algorithms"),
        ("text", "The partitioned algorithm converged in 12 iterations."),
    ]
    assert reference_blocks(blocks) == [False, True, True, True, False, False]


def test_a_line_between_two_entries_continues_the_list_without_a_heading():
    blocks = [
        ("text", "Taheri PA: Early placement of filters. J Trauma 1996, 40:797-804."),
        ("text", "Hadziomerovic A, Kachura JR: Gunther Tulip Retrievable Vena Cava Filter:"),
        ("text", "experience with filters. J Endovasc Ther 2003, 10:994-1000."),
        ("text", "Filters were placed in 42 patients without complications."),
    ]
    assert reference_blocks(blocks) == [True, True, True, False]


def test_an_appendix_heading_the_conversion_left_as_text_ends_the_list():
    """JSS papers print appendices after the references; Docling gave one heading as text."""
    blocks = [
        ("heading", "References"),
        ("text", "Moshier SL (1992). Cephes Mathematical Library. URL http://www.moshier.net/."),
        ("text", "A. Partitioned vs. unpartitioned variable projection algorithms"),
        ("text", "This appendix considers the memory requirements of the algorithm."),
    ]
    assert reference_blocks(blocks) == [True, True, False, False]
    # an entry line that opens with an initial is no such heading
    entries = [("heading", "References"), ("text", "A. Migdall, and G. S. Solomon, Phys. Rev.")]
    assert reference_blocks(entries) == [True, True]
