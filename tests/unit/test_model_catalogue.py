"""citeloom's copy of FastEmbed's text-model catalogue is the installed FastEmbed's."""

from __future__ import annotations

import json

import pytest

from citeloom.resources import FASTEMBED_CATALOGUE


def test_the_catalogue_copy_matches_fastembed():
    pytest.importorskip("fastembed")
    from tests.fastembed_catalogue import catalogue_from_fastembed

    ours = json.loads(FASTEMBED_CATALOGUE.read_text(encoding="utf-8"))
    theirs = catalogue_from_fastembed()
    assert ours["models"] == theirs["models"], (
        "FastEmbed's catalogue changed: regenerate the copy (see tests/fastembed_catalogue.py)"
    )


def test_model_families_choose_prefixes_and_pooling():
    from citeloom.adapters.embedding.models import family

    assert family("fastembed/intfloat/multilingual-e5-large").query_prefix == "query: "
    assert family("fastembed/intfloat/multilingual-e5-large").passage_prefix == "passage: "
    assert family("fastembed/BAAI/bge-small-en-v1.5").pooling == "cls"
    assert family("fastembed/BAAI/bge-small-zh-v1.5").query_prefix.startswith("为")
    assert family("fastembed/all-MiniLM-L6-v2").query_prefix == ""
    assert family("lab/bge-small-en").passage_prefix == ""
