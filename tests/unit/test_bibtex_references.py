"""A BibTeX/BibLaTeX library read as the same entries CSL-JSON gives: a hand-kept ``.bib``
with the usual mess (tests/data/hand_kept.bib), and the refusal of a broken one, of a bomb
of macros and of a file that is no text at all."""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import textwrap

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


def test_a_library_in_another_encoding_is_refused_at_its_line_and_column(tmp_path):
    latin = tmp_path / "latin.bib"
    text = "% exported from an old tool\n@misc{d,\n  title = {Caf\xe9 au lait}}\n"
    latin.write_bytes(text.encode("latin-1"))
    with pytest.raises(ReferencesError) as caught:
        load_references(latin)
    assert str(caught.value) == (
        f"{latin}: cannot be read as UTF-8 (line 3, column 15: byte 0xe9 is not UTF-8). "
        "Save or export it as UTF-8."
    )


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


def _doubling(last: int) -> list[str]:
    """``@string`` lines each twice the one before: s0 is 2 characters, sN is 2**(N+1)."""
    return ['@string{s0 = "ab"}'] + [
        f"@string{{s{n} = s{n - 1} # s{n - 1}}}" for n in range(1, last + 1)
    ]


def test_forty_doubling_strings_are_refused_at_once_in_bounded_memory(tmp_path):
    # 1 KB that pybtex would expand to 2 TB: refused where the expansion passes 1 MB. Run in a
    # process held to 1.5 GB of address space, so that a regression fails with MemoryError
    # instead of taking the machine.
    library = tmp_path / "library.bib"
    library.write_text("\n".join([*_doubling(40), "@misc{a, title = s40}"]) + "\n")
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from citeloom.adapters.csl_references import load_references
        from citeloom.domain.errors import ReferencesError
        try:
            load_references(Path({str(library)!r}))
        except ReferencesError as error:
            print(error)
        """
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    run = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.startswith(
        f"{library}: line 20: @string s19 expands past 1 MB (1,048,576 characters). "
    )
    assert "Shorten the value there or the macros it uses" in run.stdout


@pytest.mark.parametrize(
    ("last_lines", "line", "what"),
    [
        ([], 20, "@string s19 expands past 1 MB (1,048,576 characters)"),
        (["@misc{a,", "  title = s18 # s18}"], 21, "field title of entry a expands past 1 MB"),
        (["@preamble{s18 # s18 # s18}"], 20, "@preamble expands past 1 MB (1,572,864 characters)"),
    ],
)
def test_a_value_expanding_past_1_mb_is_refused_at_its_line(tmp_path, last_lines, line, what):
    library = tmp_path / "library.bib"
    chain = _doubling(20 if not last_lines else 18)
    library.write_text("\n".join([*chain, *last_lines]) + "\n", encoding="utf-8")
    with pytest.raises(ReferencesError) as caught:
        load_references(library)
    assert str(caught.value).startswith(f"{library}: line {line}: {what}")


def test_values_within_1_mb_each_are_bounded_together_by_the_files_length(tmp_path):
    # s17 is 262,144 characters: each title is allowed, eight of them in a 1 KB file are not
    library = tmp_path / "library.bib"
    entries = [f"@misc{{a{n}, title = s17}}" for n in range(1, 9)]
    library.write_text("\n".join([*_doubling(17), *entries]) + "\n", encoding="utf-8")
    with pytest.raises(ReferencesError) as caught:
        load_references(library)
    budget = 2 * len(library.read_text()) + 2_000_000
    assert str(caught.value).startswith(
        f"{library}: line 24: field title of entry a6 takes the library's values past "
        f"{budget:,} characters together (twice the file's length, and 2 MB more). "
    )


def test_binary_data_is_refused_as_no_library_and_an_empty_one_still_loads(tmp_path):
    junk = tmp_path / "random.bib"
    junk.write_bytes(random.Random(42).randbytes(4096))
    picture = tmp_path / "figure.bib"  # a PNG saved under the library's name
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    controls = tmp_path / "controls.bib"  # valid UTF-8, no @ in it: pybtex reads no entry
    controls.write_bytes(bytes(random.Random(7).choice(b"\x01\x02\x1bab\n") for _ in range(4096)))
    for path in (junk, picture, controls):
        with pytest.raises(ReferencesError) as caught:
            load_references(path)
        message = str(caught.value)
        assert message.startswith(f"{path}: binary data, not a library (a control byte "), message
        assert message.endswith(" to this path, or fix references in the config.")
    # what is no binary data keeps loading: an empty file, comments alone, and a title with
    # a control character pasted from a PDF
    empty = tmp_path / "empty.bib"
    empty.write_bytes(b"")
    comments = tmp_path / "comments.bib"
    comments.write_text("% nothing exported yet\n@comment{jabref-meta: x;}\n", encoding="utf-8")
    assert load_references(empty) == load_references(comments) == []
    pasted = tmp_path / "pasted.bib"
    pasted.write_text("@misc{k, title = {Two\x0bLines}, note = {" + "n" * 300 + "}}\n")
    assert [r.citekey for r in load_references(pasted)] == ["k"]
