"""The project's relations file (TOML) and the relations kept beside the library, computed
again whenever the references file or the relations file changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeloom.adapters.library_relations import LibraryRelations
from citeloom.adapters.relations_file import RelationsFileError, parse_relations, read_relations
from citeloom.domain.errors import ExitCode
from tests.conftest import DATA

GOOD = """
# what the library cannot say
[[version_of]]
version = "he2025pasa"
record = "he2024pasa"
reason = "the arXiv version of the conference paper"

[[supersedes]]
new = "iqbal2011requirement"
old = "iqbal2010new"
reason = "the journal paper revises the model"

[[retracted]]
citekey = "@hong1999exact"
reason = "retracted by the journal in 2001"

[[conflicts_with]]
citekeys = ["muller2009interference", "muller2010interference"]
reason = "the visibilities disagree"

[[distinct]]
citekeys = ["matthiesen2010coherence", "matthiesen2011coherence"]
reason = "different experiments"
"""


def test_every_kind_of_declared_relation_is_read_with_its_reason(tmp_path: Path):
    path = tmp_path / "thesis-relations.toml"
    path.write_text(GOOD, encoding="utf-8")
    relations, data = read_relations(path)
    assert data == path.read_bytes()
    assert [(r.kind, r.source, r.target, r.origin) for r in relations] == [
        ("version_of", "he2025pasa", "he2024pasa", "file"),
        ("supersedes", "iqbal2011requirement", "iqbal2010new", "file"),
        ("retracted", "hong1999exact", None, "file"),
        ("conflicts_with", "muller2009interference", "muller2010interference", "file"),
        ("distinct", "matthiesen2010coherence", "matthiesen2011coherence", "file"),
    ]
    assert relations[2].evidence == "retracted by the journal in 2001"
    assert {r.certainty for r in relations} == {"certain"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[version_of]\nversion = 1", "not valid TOML"),
        ('[[replaces]]\nnew = "a"\nold = "b"\nreason = "x"', "unknown relation [[replaces]]"),
        ('[[retracted]]\ncitekey = "a"', "[[retracted]] #1: 'reason' is missing"),
        ('[[retracted]]\ncitekey = "a"\nreason = "  "', "'reason' is empty"),
        ('[[retracted]]\ncitekey = "a"\nwhy = "x"\nreason = "x"', "unknown key 'why'"),
        ('[[version_of]]\nversion = "a"\nreason = "x"', "'record' is missing"),
        ('[[version_of]]\nversion = "a"\nrecord = "a"\nreason = "x"', "are both 'a'"),
        ('[[retracted]]\ncitekey = "a"\nnotice = "a"\nreason = "x"', "notice are both 'a'"),
        ('[[distinct]]\ncitekeys = ["a"]\nreason = "x"', "must list two citekeys"),
        ('[[conflicts_with]]\ncitekeys = ["a", 3]\nreason = "x"', "must be a citekey"),
        ('version_of = "a"', "not an array of tables"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_file_the_table_and_the_fix(tmp_path, text, said):
    path = tmp_path / "relations.toml"
    with pytest.raises(RelationsFileError) as caught:
        parse_relations(path, text.encode())
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and said in message
    assert "docs/relations.md" in message
    assert caught.value.exit_code == ExitCode.USAGE


def test_a_missing_relations_file_names_the_setting(tmp_path: Path):
    with pytest.raises(RelationsFileError, match="remove relations = from the project"):
        read_relations(tmp_path / "nope.toml")


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "papers.json"
    shutil.copy(DATA / "papers.csl.json", path)
    return path


def test_declared_relations_apply_and_unknown_citekeys_are_named_not_fatal(library, tmp_path):
    relations = tmp_path / "relations.toml"
    relations.write_text(
        GOOD + '\n[[retracted]]\ncitekey = "nobody2020"\nreason = "typo"\n', encoding="utf-8"
    )
    source = LibraryRelations(library, relations, tmp_path / "cache")
    graph = source.graph()
    assert graph.flags("hong1999exact").retracted
    assert graph.flags("he2025pasa").superseded_by == "he2024pasa"
    assert graph.flags("iqbal2010new").superseded_by == "iqbal2011requirement"
    # the possible version the library suggested is silenced by [[distinct]]
    assert not any(r.pair == {"matthiesen2010coherence", "matthiesen2011coherence"}
                   for r in graph.relations)  # fmt: skip
    # inferred ones stay
    assert graph.flags("mullen2006timp").superseded_by == "mullen2007timp"
    (problem,) = source.problems()
    assert "nobody2020" in problem and "fix the citekey or remove the relation" in problem


def test_relations_are_cached_by_the_files_hash_and_follow_a_changed_library(library, tmp_path):
    cache = tmp_path / "cache"
    first = LibraryRelations(library, None, cache).graph()
    stored = list((cache / "relations").glob("*.json"))
    assert len(stored) == 1
    # read back from the cache file (another object, its own memo), equal to what was computed
    again = LibraryRelations(library, None, cache).graph()
    assert again.relations == first.relations and again.preprints == first.preprints
    # the references file changes: a new key, computed again (no stale relation survives)
    entries = json.loads(library.read_text(encoding="utf-8"))
    entries = [e for e in entries if e["id"] != "mullen2006timp"]
    entries.append(
        {
            "id": "ahmed2013erratum",
            "type": "article-journal",
            "title": "Erratum to: Energy Efficient Routing Protocol for Zone Based Mobile "
            "Sensor Networks",
            "author": [{"family": "Ahmed", "given": "Usama"}],
        }
    )
    library.write_text(json.dumps(entries), encoding="utf-8")
    changed = LibraryRelations(library, None, cache).graph()
    assert changed.flags("mullen2007timp").empty
    # the erratum names the version of record of the two versions with that title
    assert [r.citekey for r in changed.flags("ahmed2012energy").related] == ["ahmed2013erratum"]
    assert len(list((cache / "relations").glob("*.json"))) == 2


def test_a_process_memo_serves_later_queries_and_keeps_a_few_libraries(library, tmp_path):
    from citeloom.adapters.relations_memo import RelationsMemo

    memo, cache = RelationsMemo(graphs=1), tmp_path / "cache"
    first = LibraryRelations(library, None, cache, memo=memo).graph()
    for stored in (cache / "relations").glob("*.json"):
        stored.unlink()
    # a later unit of work of the same process: from the memo, the cache file is not needed
    served = LibraryRelations(library, None, cache, memo=memo).graph()
    assert served.relations == first.relations
    assert not list((cache / "relations").glob("*.json"))
    # another library takes the only place: the first one is computed (and stored) again
    other = tmp_path / "other.json"
    other.write_text(json.dumps(json.loads(library.read_text(encoding="utf-8"))[:3]))
    LibraryRelations(other, None, cache, memo=memo).graph()
    assert len(memo.graphs) == 1
    again = LibraryRelations(library, None, cache, memo=memo).graph()
    assert again.relations == first.relations
    assert len(list((cache / "relations").glob("*.json"))) == 2


def test_a_missing_library_leaves_the_declared_relations(tmp_path: Path):
    relations = tmp_path / "relations.toml"
    relations.write_text('[[retracted]]\ncitekey = "a"\nreason = "b"\n', encoding="utf-8")
    graph = LibraryRelations(tmp_path / "absent.json", relations, None).graph()
    assert graph.flags("a").retracted
