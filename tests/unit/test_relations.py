"""Relations between library entries (``domain.relations``) on real CSL-JSON: the hand-made
set (a group of entries per relation type, and traps), a held-out set written before the
last rules were tuned, the library of the shared papers and Better BibTeX's own exports."""

from __future__ import annotations

import json

import pytest

from citeloom.adapters.csl_references import load_references, title_score
from citeloom.domain.diversity import diversify
from citeloom.domain.models import Reference, Resemblance
from citeloom.domain.relations import (
    DocumentFacts,
    Relation,
    RelationGraph,
    citation_notes,
    infer_relations,
    notice_of,
    prefer_records,
    relation_graph,
)
from citeloom.services.relation_words import banner, note_message
from citeloom.services.usecases.wire import RelationFlags, flag_fields
from tests.conftest import CSL_FIXTURES, DATA

TRUTH = json.loads((DATA / "relations_truth.json").read_text(encoding="utf-8"))


def keys(relations, certainty: str) -> set[tuple[str, str, str | None]]:
    return {(r.kind, r.source, r.target) for r in relations if r.certainty == certainty}


def truth(name: str) -> set[tuple[str, str, str | None]]:
    out = set()
    for row in TRUTH[name]:
        out.add((row["kind"], row["from"], row["to"]))
        if row.get("either"):
            out.add((row["kind"], row["to"], row["from"]))
    return out


def inferred(name: str) -> list[Relation]:
    return infer_relations(load_references(DATA / name), title_score)


@pytest.mark.parametrize(
    "name", ["relations.csl.json", "relations_heldout.csl.json", "papers.csl.json"]
)
def test_no_certain_relation_is_inferred_where_none_holds(name):
    assert keys(inferred(name), "certain") <= truth(name)


@pytest.mark.shared
@pytest.mark.parametrize("path", sorted(CSL_FIXTURES.glob("*.json")), ids=lambda p: p.name[:40])
def test_better_bibtex_exports_hold_no_relation_and_none_is_inferred(path):
    """Close titles, two episodes of one show, two TIME pages, editions of nothing."""
    assert infer_relations(load_references(path), title_score) == []


def test_every_kind_of_relation_of_the_hand_made_set_is_found_with_its_evidence():
    found = inferred("relations.csl.json")
    certain = keys(found, "certain")
    missed = [row for row in TRUTH["relations.csl.json"] if
              (row["kind"], row["from"], row["to"]) not in certain]  # fmt: skip
    # the journal extension under a longer title is only possible: titles merely alike
    assert [(row["from"], row["to"]) for row in missed] == [("rossi2016fast", "rossi2018fast")]
    assert ("version_of", "rossi2016fast", "rossi2018fast") in keys(found, "possible")
    evidence = {(r.kind, r.source, r.target): r.evidence for r in found}
    assert "arXiv id 1905.01234" in evidence[("version_of", "chen2019graph", "chen2020graph")]
    editions = evidence[("version_of", "hastie2001elements", "hastie2009elements")]
    assert "editions 1 and 2" in editions
    assert "'RETRACTED:'" in evidence[("retracted", "kovacs2014stem", None)]
    assert evidence[("retracted", "brandt2019micro", None)] == "status: retracted"


def test_the_shared_papers_library_keeps_its_decoys_apart():
    """The report and the conference paper with the journal version's exact title are
    versions of it; close titles by the same authors in other years are only possible,
    and the same title by other authors is nothing."""
    found = inferred("papers.csl.json")
    assert keys(found, "certain") == truth("papers.csl.json")
    for possible in keys(found, "possible"):
        assert possible[0] == "version_of"
    assert not any("lee2009information" in r.pair for r in found)


@pytest.mark.parametrize(
    "title",
    [
        "Correction of spherical aberration in electron microscopes",
        "Response to drought stress in maize seedlings",
        "Retraction cord techniques in fixed prosthodontics: a review",
        "Reply to the critics of ecological economics",
        "Discussion of results",
    ],
)
def test_an_ordinary_title_beginning_with_a_notice_word_is_no_notice(title):
    other = Reference("a2020", "Drought stress in maize seedlings", ("Ali, Omar",), 2020)
    refs = [Reference("x2015", title, ("Ali, Omar",), 2015), other]
    assert [r for r in infer_relations(refs, title_score) if r.certainty == "certain"] == []
    notice = notice_of(title)
    assert notice is None or not notice.strong


def _refs() -> list[Reference]:
    return [
        Reference("pre", "Carbon burial", ("Ardel, Ines",), 2022, csl_type="article",
                  publisher="EarthArXiv"),
        Reference("rec", "Carbon burial", ("Ardel, Ines",), 2023, csl_type="article-journal"),
        Reference("err", "Erratum to: Carbon burial", ("Ardel, Ines",), 2024,
                  csl_type="article-journal"),
        Reference("gone", "RETRACTED: Quiet hours", ("Lee, Ann",), 2019,
                  csl_type="article-journal"),
        Reference("other", "Field notebooks", ("Tanabe, Yu",), 2022, csl_type="article-journal"),
    ]  # fmt: skip


def test_flags_name_the_version_of_record_what_supersedes_and_what_is_retracted():
    graph = relation_graph(infer_relations(_refs(), title_score), [])
    pre, rec, gone = graph.flags("pre"), graph.flags("rec"), graph.flags("gone")
    assert pre.superseded_by == "rec" and pre.record == "rec"
    assert [(v.citekey, v.record) for v in pre.versions] == [("rec", True)]
    assert rec.superseded_by is None and [v.citekey for v in rec.versions] == ["pre"]
    assert [(r.citekey, r.relation) for r in rec.related] == [("err", "has_erratum")]
    assert gone.retracted and "RETRACTED" in (banner(gone) or "")
    assert graph.flags("other").empty and banner(graph.flags("other")) is None
    assert RelationFlags(**flag_fields(pre)).dump()["superseded_by"] == "rec"
    assert banner(pre) == "superseded by @rec (the version of record)"


def test_check_warns_of_a_retraction_and_notes_the_version_to_cite():
    graph = relation_graph(infer_relations(_refs(), title_score), [])
    (warning,) = citation_notes(graph.flags("gone"))
    assert warning.severity == "warning" and "@gone is retracted" in note_message(warning)
    notes = citation_notes(graph.flags("pre"))
    assert [(n.severity, n.citekey) for n in notes] == [("note", "rec")]
    assert "cite @rec" in note_message(notes[0])
    assert [n.citekey for n in citation_notes(graph.flags("rec"))] == ["err"]
    assert citation_notes(graph.flags("other")) == []


def test_the_relations_file_confirms_silences_and_adds():
    inferred_ = infer_relations(_refs(), title_score)
    declared = [
        Relation("distinct", "pre", "rec", "two different studies", origin="file"),
        Relation("retracted", "other", None, "retracted in 2024", origin="file"),
        Relation("conflicts_with", "rec", "other", "other finds no burial", origin="file"),
    ]
    graph = relation_graph(inferred_, declared)
    assert graph.flags("pre").superseded_by is None and graph.flags("pre").versions == ()
    assert graph.flags("other").retracted
    assert [(c.citekey, c.reason) for c in graph.flags("other").conflicts_with] == [
        ("rec", "other finds no burial")
    ]
    assert [c.citekey for c in graph.flags("rec").conflicts_with] == ["other"]
    confirmed = relation_graph(
        inferred_, [Relation("version_of", "other", "rec", "same study", origin="file")]
    )
    assert confirmed.flags("other").superseded_by == "rec"


def test_a_possible_relation_is_never_applied():
    graph = RelationGraph([Relation("version_of", "a", "b", "similar titles", "possible")])
    assert graph.flags("a").empty and graph.record("a") is None and graph.work("a") is None


def test_between_near_tied_passages_of_two_versions_the_record_comes_first():
    graph = RelationGraph([Relation("version_of", "pre", "rec", "same title")])
    ranked = [("pre", 0.80), ("x", 0.795), ("rec", 0.79), ("rec", 0.60), ("pre", 0.5)]
    out = prefer_records(ranked, graph, lambda r: r[0], lambda r: r[1])
    assert out == [("rec", 0.79), ("pre", 0.80), ("x", 0.795), ("rec", 0.60), ("pre", 0.5)]
    # a clear lead is kept, and nothing is ever dropped
    far = [("pre", 0.80), ("rec", 0.70)]
    assert prefer_records(far, graph, lambda r: r[0], lambda r: r[1]) == far


def test_near_duplicate_passages_of_two_versions_are_both_kept():
    graph = RelationGraph([Relation("version_of", "pre", "rec", "same title")])
    text = "Restored sites accreted a mean of 6.8 millimetres of sediment per year."
    items = [("rec", "d1", text), ("pre", "d2", text), ("rec", "d3", text), ("z", "d4", text)]
    kept = diversify(items, lambda i: i[2], lambda i: i[1], work=lambda i: (graph.work(i[0]), i[0]))
    # the preprint's copy stays; another copy of the record's own text and an unrelated
    # paper repeating it collapse as before
    assert [i[1] for i in kept] == ["d1", "d2"]


def test_a_pdf_that_prints_another_entrys_title_and_authors_is_its_preprint():
    refs = [
        Reference("x2009", "Ultra-light dark matter (v1)", ("Montoya, Ivan",), 2009,
                  csl_type="article", arxiv_id="0908.0054"),
        Reference("y2010", "Ultra light bosonic dark matter and CMB", ("Montoya, Ivan",), 2010,
                  csl_type="article-journal"),
    ]  # fmt: skip
    assert infer_relations(refs, title_score) == []  # the library alone cannot tell
    fact = DocumentFacts("d1", "/p/0908.0054.pdf", "x2009", "0908.0054v1",
                         (Resemblance("y2010", 1.0, 1.0),))  # fmt: skip
    (relation,) = infer_relations(refs, title_score, [fact])
    assert (relation.kind, relation.source, relation.target, relation.certainty) == (
        "version_of", "x2009", "y2010", "certain",
    )  # fmt: skip
    assert relation.origin == "document" and "0908.0054.pdf" in relation.evidence
    # a weaker title fit, or a record older than the preprint: only possible
    weak = DocumentFacts("d1", "/p/a.pdf", "x2009", None, (Resemblance("y2010", 0.92, 1.0),))
    assert infer_relations(refs, title_score, [weak])[0].certainty == "possible"


def test_a_pdf_with_arxivs_stamp_is_flagged_as_a_preprint_of_a_journal_entry():
    graph = RelationGraph(preprints=["x2009"])
    assert "arXiv:0908.0054v1" in (graph.flags("y2010", "0908.0054v1").preprint_pdf or "")
    assert graph.flags("x2009", "0908.0054v1").preprint_pdf is None  # a preprint entry
    assert graph.flags("y2010").preprint_pdf is None


def test_relations_survive_their_json():
    for relation in inferred("relations.csl.json"):
        assert Relation.from_json(json.loads(json.dumps(relation.to_json()))) == relation


def test_inference_on_a_large_library_compares_only_entries_sharing_an_author():
    """5,000 entries by 500 first authors: titles are compared within an author's entries
    only (at most twice per pair), never all 12.5 million pairs."""
    calls = 0

    def counting(a: str, b: str) -> float:
        nonlocal calls
        calls += 1
        return title_score(a, b)

    refs = [
        Reference(f"k{i}", f"Study number {i} of topic {i % 97}", (f"Author{i % 500}, A",), 2000)
        for i in range(5000)
    ]
    infer_relations(refs, counting)
    assert calls <= 2 * 500 * 45  # 45 pairs among each author's 10 entries
