"""Which models citeloom can name comes from the installed FastEmbed, and families say what
FastEmbed leaves to its caller (prefixes, and the pooling of a folder that does not say)."""

from __future__ import annotations


def test_the_catalogue_is_fastembeds_own_with_the_files_each_model_needs():
    from fastembed import TextEmbedding

    from citeloom.adapters.embedding.fastembed_models import catalogue, catalogue_entry

    theirs = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    assert set(catalogue()) == {name for name in theirs if not name.startswith("citeloom-")}
    e5 = catalogue_entry("fastembed/intfloat/multilingual-e5-large")
    assert e5 is not None and e5.hf == "Qdrant/multilingual-e5-large-onnx"
    # its weights are external data beside the ONNX file: a copy without them is incomplete
    assert "model.onnx_data" in e5.additional_files and "model.onnx_data" in e5.files
    assert catalogue_entry("fastembed/BAAI/BGE-small-en-v1.5") is not None  # case as FastEmbed
    assert catalogue_entry("BAAI/bge-small-en-v1.5") is None  # citeloom's ids carry fastembed/


def test_model_families_choose_prefixes_and_pooling():
    from citeloom.adapters.embedding.models import family

    assert family("fastembed/intfloat/multilingual-e5-large").query_prefix == "query: "
    assert family("fastembed/intfloat/multilingual-e5-large").passage_prefix == "passage: "
    assert family("fastembed/BAAI/bge-small-en-v1.5").pooling == "cls"
    assert family("fastembed/BAAI/bge-small-zh-v1.5").query_prefix.startswith("为")
    assert family("fastembed/all-MiniLM-L6-v2").query_prefix == ""
    assert family("lab/bge-small-en").passage_prefix == ""
