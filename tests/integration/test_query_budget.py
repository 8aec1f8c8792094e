"""Token budgets never hide the answer or change the confidence; an empty query is a usage
error (real Docling, FastEmbed and Qdrant Edge on the bundled example papers)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real

QUESTION = "how fast do restored salt marshes accrete sediment"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    folder = tmp_path_factory.mktemp("budget")
    config = write_config(folder, ROOT / "references" / "example.json")
    code, out = run("ingest", str(EXAMPLES), "-p", "papers", "-c", str(config))
    assert code == 0, out
    return str(config)


def query(config: str, *extra: str) -> dict:
    code, out = run("query", QUESTION, "-p", "papers", "-c", config, "--json", *extra)
    assert code == 0, out
    return json.loads(out)


def test_a_budget_smaller_than_the_best_passage_trims_it_and_keeps_the_confidence(config, embedder):
    free = query(config)
    assert free["answerable"] and free["results"]
    best = free["results"][0]
    cost = embedder.count_tokens(f"[@{best['citekey']}, p. {best['page_start']}] {best['text']}")
    budget = cost // 2  # the best passage does not fit whole
    cut = query(config, "--budget", str(budget))
    assert (cut["confidence"], cut["answerable"]) == (free["confidence"], free["answerable"])
    (first,) = cut["results"]  # nothing else fits beside it
    assert first["chunk_id"] == best["chunk_id"] and first["trimmed"] is True
    assert first["text"].endswith("…")
    assert best["text"].startswith(first["text"].removesuffix("…").rstrip())
    label = f"[@{first['citekey']}, p. {first['page_start']}]"
    assert embedder.count_tokens(f"{label} {first['text']}") <= budget
    assert "trimmed" not in best  # a whole passage is not marked

    code, text = run("query", QUESTION, "-p", "papers", "-c", config, "--budget", str(budget))
    assert code == 0 and "(trimmed to the budget)" in text


def test_a_budget_too_small_for_any_passage_says_so_and_keeps_the_confidence(config):
    free = query(config)
    cut = query(config, "--budget", "3")
    assert cut["results"] == [] and cut["confidence"] == free["confidence"]
    assert cut["answerable"] == free["answerable"]
    assert "nothing fits in 3 tokens" in cut["note"]
    code, text = run("query", QUESTION, "-p", "papers", "-c", config, "--budget", "3")
    assert code == 0 and "nothing fits in 3 tokens" in text and "--budget" in text


@pytest.mark.parametrize("text", ["", "   ", "?!"])
def test_an_empty_query_is_a_usage_error(config, text):
    code, out = run("query", text, "-p", "papers", "-c", config)
    assert code == 2, out
    assert "say what you are looking for" in out
