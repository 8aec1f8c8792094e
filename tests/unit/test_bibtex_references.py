"""A BibTeX/BibLaTeX library read as the same entries CSL-JSON gives: a hand-kept ``.bib``
with the usual mess (tests/data/hand_kept.bib), and the refusal of a broken one."""

from __future__ import annotations

import json

import pytest

from citeloom.adapters.csl_references import CslMetadataResolver, load_references
from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError, ReferencesError
from citeloom.domain.models import Block, BlockKind, ConvertedDocument
from citeloom.domain.relations.entries import PREPRINT, stage
from tests.conftest import DATA, write_config

HAND_KEPT = DATA / "hand_kept.bib"


@pytest.fixture(scope="module")
def refs() -> dict:
    return {r.citekey: r for r in load_references(HAND_KEPT)}


def test_macros_concatenation_and_accents_are_resolved(refs):
    hong = refs["hong1999exact"]
    assert hong.container_title == "Zeitschrift für Naturforschung A"  # @string # " A"
    assert hong.title == (
        "Exact Solitary-wave Solutions for the General Fifth-order Shallow Water-wave Models"
    )
    assert hong.authors == ("Hong, Woo-Pyo", "Jung, Young-Dae")  # field names in capitals
    assert (hong.year, hong.page) == (1999, "272–273")  # BibTeX's "--" is an en dash
    assert hong.pages_choice == "printed"  # Zotero's Extra line, in note
    assert refs["bolejko2008apparent"].container_title == (
        "Journal of Cosmology and Astroparticle Physics"
    )
    ultra = refs["rodriguezmontoya2009ultra"]
    assert ultra.authors == ("Rodríguez-Montoya, Iván", "Matos, Tonatiuh")


def test_names_keep_particles_and_corporate_authors_and_drop_others(refs):
    book = refs["mueller2001genes"]
    assert book.authors == ("Müller, Jörg", "von Neumann, John", "World Health Organization")
    assert book.family_names == ("Müller", "von Neumann", "World Health Organization")
    assert book.title == "Genes and DNA: A Primer – Second Thoughts"  # title: subtitle
    assert refs["garcia2001rna"].authors == ("García, José",)  # "First Last" order


def test_dois_and_arxiv_ids_are_read_from_biblatex_and_bibtex_fields(refs):
    bolejko = refs["bolejko2008apparent"]
    assert bolejko.doi == "10.1088/1475-7516/2008/10/003"  # from a doi.org link
    assert bolejko.arxiv_id == "0807.3577"  # eprint + eprinttype = arxiv
    assert bolejko.year == 2008 and bolejko.tags == ("cosmology", "dark energy")
    ultra = refs["rodriguezmontoya2009ultra"]
    assert ultra.arxiv_id == "0908.0054"  # eprint + archivePrefix = arXiv
    assert stage(ultra) == PREPRINT  # an arXiv @misc is a preprint, as its CSL twin is
    assert refs["doe2010paper"].doi == "10.1000/xyz_123"  # escaped underscore
    assert refs["nobody2015"].url == "https://example.org/a%20paper_1"  # % is no comment


def test_crossref_and_xdata_children_inherit_as_biblatex_says(refs):
    chapter = refs["garcia2001rna"]
    assert chapter.title == "The Chapter on RNA"  # its own title, not the book's
    assert chapter.container_title == "Genes and DNA: A Primer – Second Thoughts"
    # the book's publisher is in an @xdata entry: inherited through both
    assert (chapter.year, chapter.publisher, chapter.page) == (2001, "Springer", "45–67")
    assert "springer" not in refs  # an @xdata entry is no entry to cite
    assert chapter.csl_type == "chapter"
    # the parent comes after its child in the file: still inherited
    paper = refs["doe2010paper"]
    assert paper.container_title == "Proceedings of the Tenth Workshop"
    assert (paper.year, paper.publisher) == (2010, "ACL")
    assert refs["smith2010proceedings"].authors == ()  # editors are not authors


def test_comments_preamble_and_stray_text_make_no_entries_and_gaps_load():
    keys = [r.citekey for r in load_references(HAND_KEPT)]
    assert len(keys) == 10 and keys.count("dup2020") == 2
    nobody = next(r for r in load_references(HAND_KEPT) if r.citekey == "nobody2015")
    assert (nobody.title, nobody.year) == ("", None)  # no title; "in press" is no year


def test_a_key_two_entries_claim_belongs_to_neither(refs):
    resolver = CslMetadataResolver(HAND_KEPT)
    assert "dup2020" not in {r.citekey for r in resolver.references()}
    [problem] = resolver.problems()
    assert "citekey dup2020 is claimed by 2 entries" in problem.detail
    assert "The first of two" in problem.detail and "The second of two" in problem.detail
    assert "hand_kept.bib" in problem.fix


def test_a_bib_entry_is_matched_by_the_doi_its_pdf_prints():
    text = "J. Cosmol. Astropart. Phys. doi:10.1088/1475-7516/2008/10/003\nApparent and average"
    document = ConvertedDocument(
        source_path="paper.pdf",
        sha256="0" * 64,
        title="Apparent and Average Accelerations of the Universe",
        page_count=15,
        blocks=(Block(text, BlockKind.TEXT, page=1),),
        converter="test",
    )
    match = CslMetadataResolver(HAND_KEPT).resolve(document)
    assert (match.citekey, match.kind) == ("bolejko2008apparent", "doi")


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("library.bib", "@article{a,\n  title = {Unclosed,\n  year = 2001\n}\n@misc{b}\n", "line"),
        ("library.bib", "@article{, title = {No key}}\n", "line 1"),
        ("library.bib", "@misc{a, journal = undefinedmacro}\n", "undefinedmacro"),
        ("library.bib", "@misc{a, title = {A}, title = {B}}\n", "duplicate title field"),
    ],
)
def test_a_broken_bib_fails_with_its_path_line_and_fix(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReferencesError) as caught:
        load_references(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not valid BibTeX (")
    assert expected in message
    assert "export the library again from Zotero with Better BibTeX" in message


def test_the_format_is_told_by_the_content_before_the_name(tmp_path):
    as_bib = tmp_path / "exported.bib"  # CSL-JSON saved under a .bib name
    as_bib.write_text(json.dumps([{"id": "a2020", "title": "A", "type": "article"}]))
    assert [r.citekey for r in load_references(as_bib)] == ["a2020"]
    as_text = tmp_path / "library.txt"  # BibTeX under another name
    as_text.write_text("% mine\n@article{b2021, title = {B}}\n")
    assert [r.citekey for r in load_references(as_text)] == ["b2021"]
    broken = tmp_path / "library.json"  # broken JSON keeps its JSON message
    broken.write_text("@article{c, title = {C}}")
    with pytest.raises(ReferencesError, match="not valid JSON"):
        load_references(broken)
    latin = tmp_path / "latin.bib"
    latin.write_bytes("@misc{d, title = {Caf\xe9}}".encode("latin-1"))
    with pytest.raises(ReferencesError, match="Save or export it as UTF-8"):
        load_references(latin)


def test_the_config_names_the_library_references_or_references_json(tmp_path):
    config = write_config(tmp_path, HAND_KEPT)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("references_json =", "references ="), encoding="utf-8")
    assert load_settings(config).project["papers"].references_json == HAND_KEPT
    both = text.replace("references_json =", f'references = "{HAND_KEPT}"\nreferences_json =')
    config.write_text(both, encoding="utf-8")
    with pytest.raises(ConfigError, match="keep references only"):
        load_settings(config)


def test_a_crossref_loop_or_a_missing_parent_inherits_nothing_more(tmp_path):
    library = tmp_path / "loops.bib"
    library.write_text(
        "@inbook{a, title = {A}, crossref = {b}}\n"
        "@book{b, title = {B}, year = 1999, crossref = {a}}\n"
        "@inbook{a, title = {A again}, crossref = {b}}\n"  # a duplicate with a crossref too
        "@incollection{c, title = {C}, crossref = {nowhere}}\n",
        encoding="utf-8",
    )
    refs = load_references(library)
    assert [(r.citekey, r.title, r.container_title, r.year) for r in refs] == [
        ("a", "A", "B", 1999),
        ("b", "B", None, 1999),  # the loop back to a stops: b keeps its own
        ("a", "A again", "B", 1999),
        ("c", "C", None, None),
    ]
