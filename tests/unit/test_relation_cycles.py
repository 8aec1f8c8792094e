"""Relations that order works cannot go round in a circle: a supersedes b supersedes a (or a
longer loop, or a version of record superseded by its own version) is set aside, named, never
applied, and `validate` fails; what is not on the cycle still applies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeloom.adapters.library_relations import LibraryRelations
from citeloom.domain.errors import ExitCode
from citeloom.domain.relations import Relation, RelationGraph, find_cycles, relation_graph
from citeloom.services.relation_words import banner
from citeloom.services.validate import relations_check
from tests.conftest import DATA


def declared(kind: str, a: str, b: str | None = None) -> Relation:
    return Relation(kind, a, b, "the user says so", origin="file")


@pytest.mark.parametrize(
    "relations",
    [
        [declared("supersedes", "a", "b"), declared("supersedes", "b", "a")],
        [
            declared("supersedes", "a", "b"),
            declared("supersedes", "b", "c"),
            declared("supersedes", "c", "a"),
        ],
        # a version of b, whose record is b; and a declared to supersede b
        [declared("version_of", "a", "b"), declared("supersedes", "a", "b")],
        # a -> b -> c by versions, c superseded by a
        [
            declared("version_of", "a", "b"),
            declared("version_of", "b", "c"),
            declared("supersedes", "a", "c"),
        ],
    ],
    ids=["two", "three", "version-and-supersedes", "versions-and-supersedes"],
)
def test_no_paper_of_a_supersession_cycle_is_shown_superseded(relations):
    graph = RelationGraph([*relations, declared("supersedes", "x", "y")])
    (cycle,) = graph.cycles
    assert cycle.order == "supersession" and set(cycle.relations) == set(relations)
    assert set(cycle.citekeys) == {k for r in relations for k in r.pair}
    for key in cycle.citekeys:
        flags = graph.flags(key)
        assert flags.superseded_by is None and graph.record(key) is None, key
        assert "superseded" not in (banner(flags) or "")
    assert graph.flags("y").superseded_by == "x"  # off the cycle: applied
    assert all(r not in graph.certain for r in relations)
    for r in relations:
        assert f"@{r.source} {r.kind} @{r.target} (file)" in cycle.describe()


def test_errata_and_replies_that_go_round_are_set_aside():
    errata = [declared("erratum_of", "a", "b"), declared("erratum_of", "b", "a")]
    replies = [declared("reply_to", "c", "d"), declared("reply_to", "d", "c")]
    graph = RelationGraph([*errata, *replies, declared("erratum_of", "e", "a")])
    assert [c.order for c in graph.cycles] == ["errata", "replies"]
    assert [(r.citekey, r.relation) for r in graph.flags("a").related] == [("e", "has_erratum")]
    assert graph.flags("c").related == () and graph.flags("d").related == ()


def test_a_retraction_on_a_cycle_still_flags_the_paper_without_the_notice():
    graph = RelationGraph([declared("retracted", "a", "b"), declared("retracted", "b", "a")])
    assert [c.order for c in graph.cycles] == ["retractions"]
    for key in ("a", "b"):
        flags = graph.flags(key)
        assert flags.retracted and flags.related == ()


def test_orders_without_a_cycle_and_unordered_relations_are_no_cycle():
    chain = [
        declared("version_of", "a", "b"),
        declared("version_of", "b", "c"),
        declared("version_of", "a", "c"),
        declared("supersedes", "c2", "c"),
        declared("erratum_of", "e2", "e1"),  # an erratum of an erratum
        declared("erratum_of", "e1", "a"),
        declared("conflicts_with", "a", "b"),
        declared("conflicts_with", "b", "a"),
        declared("distinct", "x", "y"),
        declared("distinct", "y", "x"),
    ]
    assert find_cycles(chain) == []
    graph = RelationGraph(chain)
    assert graph.flags("a").superseded_by == "c" and graph.flags("c").superseded_by == "c2"
    # a possible relation is never applied, so it closes no cycle
    loose = [declared("supersedes", "a", "b"), Relation("version_of", "a", "b", "x", "possible")]
    assert RelationGraph(loose).cycles == ()


def test_a_declared_relation_replacing_the_inferred_one_of_its_pair_makes_no_cycle():
    inferred = [Relation("version_of", "pre", "rec", "same title and authors")]
    graph = relation_graph(inferred, [declared("supersedes", "pre", "rec")])
    assert graph.cycles == () and graph.flags("rec").superseded_by == "pre"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "papers.json"
    shutil.copy(DATA / "papers.csl.json", path)
    return path


def test_the_library_names_the_cycle_and_its_file_and_validate_fails(library, tmp_path, caplog):
    relations = tmp_path / "relations.toml"
    relations.write_text(
        "".join(
            f'[[supersedes]]\nnew = "{new}"\nold = "{old}"\nreason = "the user says so"\n'
            for new, old in (
                ("hong1999exact", "iqbal2010new"),
                ("iqbal2010new", "hong1999exact"),
            )
        ),
        encoding="utf-8",
    )
    source = LibraryRelations(library, relations, tmp_path / "cache")
    graph = source.graph()
    assert graph.flags("hong1999exact").superseded_by is None
    assert graph.flags("iqbal2010new").superseded_by is None
    assert graph.flags("mullen2006timp").superseded_by == "mullen2007timp"  # inferred, kept
    (problem,) = source.problems()
    assert problem.startswith(f"{relations}: a cycle of supersession: ")
    assert "@hong1999exact supersedes @iqbal2010new" in problem
    assert "@iqbal2010new supersedes @hong1999exact" in problem
    check = relations_check(lambda: source)
    assert not check.ok and check.exit_code == ExitCode.USAGE
    assert "1 cycle(s) of relations, not applied" in check.detail and check.fix
    # every command warns of it (once per process)
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"relations not applied: {problem}"
    ]
    # read back from the cache (another object, its own memo): the same cycle, not applied
    again = LibraryRelations(library, relations, tmp_path / "cache")
    assert again.problems() == [problem]
    assert again.graph().flags("iqbal2010new").superseded_by is None
