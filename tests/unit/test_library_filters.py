"""Collections and tags as a Zotero user means them (issue 28, case 8): a collection includes
its sub-collections, names match whatever their case, a slash inside a name is escaped, and
an unknown name is an error naming those there are."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError
from citeloom.domain.library_filters import (
    collection_path,
    expand_collections,
    expand_tags,
    path_names,
)
from citeloom.domain.models import Reference
from citeloom.services.ingest import IngestService
from citeloom.services.query import QueryOptions, QueryService
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)

STORED = ["Thesis", "Thesis/Chapter 2", "Thesis/Chapter 2/Figures", "Thesis\\/Chapter 2"]


def test_a_slash_inside_a_name_is_escaped_and_read_back():
    literal = collection_path(["Thesis/Chapter 2"])
    assert literal == "Thesis\\/Chapter 2" != collection_path(["Thesis", "Chapter 2"])
    assert path_names(literal) == ("Thesis/Chapter 2",)
    assert path_names("/Thesis/Chapter 2/") == ("Thesis", "Chapter 2")
    assert path_names(collection_path(["a\\", "b"])) == ("a\\", "b")


def test_a_collection_includes_its_sub_collections_whatever_the_case():
    assert expand_collections(["thesis"], STORED) == (
        "Thesis",
        "Thesis/Chapter 2",
        "Thesis/Chapter 2/Figures",
    )
    assert expand_collections(["THESIS/chapter 2"], STORED) == (
        "Thesis/Chapter 2",
        "Thesis/Chapter 2/Figures",
    )
    # the top-level collection named "Thesis/Chapter 2" is not Chapter 2 of Thesis
    assert expand_collections(["thesis\\/chapter 2"], STORED) == ("Thesis\\/Chapter 2",)


def test_an_unknown_collection_or_tag_names_those_there_are():
    with pytest.raises(ConfigError) as error:
        expand_collections(["Thesis/Chapter 3"], ["Thesis/Chapter 2", "Notes"])
    assert 'collection "Thesis/Chapter 3" is not one' in str(error.value)
    assert '"Notes", "Thesis", "Thesis/Chapter 2"' in str(error.value)  # parents too
    with pytest.raises(ConfigError, match=r'tag "to read" is not one.*"solitons", "to-read"'):
        expand_tags(["to read"], ["to-read", "solitons"])
    assert expand_tags(["TO-READ"], ["to-read", "To-Read", "x"]) == ("To-Read", "to-read")


def test_query_filters_by_collection_and_tag_as_the_library_names_them(tmp_path: Path):
    refs = [
        Reference("a2020", "Alpha Paper", tags=("Soil",), collections=("Thesis/Chapter 2",)),
        Reference("b2021", "Beta Paper", tags=("water",), collections=("Thesis\\/Chapter 2",)),
    ]
    for name, title in (("a.pdf", "Alpha Paper"), ("b.pdf", "Beta Paper")):
        (tmp_path / name).write_text(f"TITLE {title}\nCarbon burial in marshes.", "utf-8")
    index = FakeIndex()
    IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(refs),
        embedder=FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
    ).run([tmp_path])
    query = QueryService(project="p", collection="c", embedder=FakeEmbedder(), index=index)

    def citekeys(**options: tuple[str, ...]) -> set[str | None]:
        return {r.citekey for r in query.search("carbon burial", QueryOptions(**options)).results}

    assert citekeys(collections=("thesis",)) == {"a2020"}
    assert citekeys(collections=("Thesis\\/Chapter 2",)) == {"b2021"}
    assert citekeys(tags=("soil",)) == {"a2020"}
    with pytest.raises(ConfigError, match=r'tag "clay".*"Soil", "water"'):
        query.search("carbon", QueryOptions(tags=("clay",)))
