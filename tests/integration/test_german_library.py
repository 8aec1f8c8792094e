"""A German and mixed German/English library from the CLI: real Docling (PDF and Markdown),
MiniLM and Qdrant Edge, a project with ``languages = ["german", "english"]``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeloom.domain.text import fold_for_match
from citeloom.entrypoints.cli import app
from tests import german_library
from tests.conftest import write_config

pytestmark = pytest.mark.real

GERMAN = 'languages = ["german", "english"]'


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("german")
    references = german_library.build(folder / "papers")
    config = write_config(folder, references, extra=GERMAN)
    code, out = run("ingest", str(folder / "papers"), "-p", "papers", "-c", str(config), "--json")
    assert code == 0, out
    return {"folder": folder, "config": config, "references": references, "ingest": json.loads(out)}


def query(library: dict, text: str, *extra: str, config: Path | None = None) -> dict:
    code, out = run(
        "query", text, "-p", "papers", "-c", str(config or library["config"]), "--json", *extra
    )
    assert code == 0, out
    return json.loads(out)


def holds(result: dict, phrase: str) -> bool:
    return f" {fold_for_match(phrase)} " in f" {fold_for_match(result['text'])} "


def test_german_pdfs_and_markdown_are_matched_to_their_references(library):
    matched = {Path(d["path"]).name: d["citekey"] for d in library["ingest"]["documents"]}
    assert matched["hennig2019_bodenerosion.pdf"] == "hennig2019erosion"
    assert matched["weber2021_gruenland.pdf"] == "weber2021gruenland"
    assert matched["brandt2020_moore.md"] == "brandt2020moore"
    assert matched["keller2022_stadtbaeume.md"] == "keller2022trees"


@pytest.mark.parametrize(
    ("question", "citekey", "phrase"),
    [
        ("Wie stark verringert Mulchsaat den Bodenabtrag?", "hennig2019erosion", "74 %"),
        ("Nutzung nasser Moore mit Schilf und Rohrkolben", "brandt2020moore", "Rohrkolben"),
        (
            "Wann wird der Grenzwert für Nitrat im Grundwasser überschritten?",
            "lorenz2018nitrat",
            "Grenzwert von 50 mg",
        ),
        ("Kühlen Stadtbäume auch in Trockenperioden?", "keller2022trees", "Trockenperioden"),
    ],
)
def test_a_german_query_finds_the_german_passage(library, question, citekey, phrase):
    best = query(library, question)["results"][0]
    assert best["citekey"] == citekey and holds(best, phrase), best


def test_an_english_query_still_finds_the_english_abstract_of_a_german_paper(library):
    best = query(library, "how much does mulch tillage reduce soil loss on loess slopes")[
        "results"
    ][0]
    assert best["citekey"] == "hennig2019erosion"
    assert holds(best, "74 percent") and holds(best, "mulch tillage")


def test_german_stop_words_weigh_nothing_and_inflections_meet(library):
    # the query's words: stop words gone, "Bodenerosionen" and "Böden" meet the paper's
    # "Bodenerosion" and "Boden" only through the German stemmer
    data = query(library, "die Bodenerosionen der Böden und der Äcker im Kraichgau")
    best = data["results"][0]
    assert best["citekey"] == "hennig2019erosion"
    assert data["answerable"]


def test_phrase_queries_keep_german_compounds_whole(library):
    found = query(library, '"Mulchsaat ohne Pflug"')["results"]
    assert found and all(holds(r, "Mulchsaat ohne Pflug") for r in found)
    # "Erosion" as a phrase is the word, never a part of "Bodenerosion"
    found = query(library, '"Erosion"', "--top-k", "20")["results"]
    assert found
    assert all(re.search(r"\berosion\b", r["text"], re.IGNORECASE) for r in found)


def test_answer_quotes_whole_german_sentences_across_abbreviations(library):
    code, out = run(
        "answer",
        "Wie wurden Abfluss und Sediment nach den Niederschlagsereignissen erfasst?",
        "-p",
        "papers",
        "-c",
        str(library["config"]),
        "--json",
    )
    assert code == 0, out
    citations = json.loads(out)["citations"]
    wanted = (
        "Abfluss und Sediment wurden nach jedem Niederschlagsereignis in Sammelbehältern "
        "erfasst (vgl. Abb. 2)."
    )
    assert wanted in [c["quote"] for c in citations], citations
    assert all(c["verified"] for c in citations)


def test_validate_says_german_queries_rely_on_bm25_with_the_english_model(library):
    code, out = run("validate", "-p", "papers", "-c", str(library["config"]), "--json")
    assert code == 0, out
    check = next(c for c in json.loads(out)["checks"] if c["check"] == "languages")
    assert check["ok"] and check["warning"]
    assert "a query in German" in check["detail"] and "BM25" in check["detail"]
    assert "paraphrase-multilingual" in check["fix"] and "--allow-download" in check["fix"]


def export(library: dict, config: Path, name: str) -> dict[str, dict]:
    target = library["folder"] / name
    code, out = run("export", str(target), "-p", "papers", "-c", str(config))
    assert code == 0, out
    lines = target.read_text(encoding="utf-8").splitlines()
    return {"header": json.loads(lines[0])} | {
        point["id"]: point for point in map(json.loads, lines[1:])
    }


def test_changing_languages_is_refused_until_reindex_rebuilds_bm25_without_embedding(library):
    before = export(library, library["config"], "before.jsonl")
    assert before.pop("header")["languages"] == ["german", "english"]
    english = write_config(library["folder"], library["references"], name="english.toml")
    papers = str(library["folder"] / "papers")
    for args in (("ingest", papers), ("query", "Bodenerosion"), ("validate",)):
        code, out = run(*args, "-p", "papers", "-c", str(english))
        assert code == 4, (args, out)
        assert "german, english" in out and "citeloom reindex" in out, out

    code, out = run("reindex", "-p", "papers", "-c", str(english))
    assert code == 0, out
    assert "without re-embedding" in out and "for english (was german, english)" in out

    after = export(library, english, "after.jsonl")
    assert after.pop("header")["languages"] == ["english"]
    assert set(after) == set(before)
    for pid, point in after.items():
        assert point["vector"] == before[pid]["vector"]  # not embedded again
        assert point["payload"] == before[pid]["payload"]
    assert any(after[p]["bm25"] != before[p]["bm25"] for p in after)  # stemmed anew
    # the project answers again, now with English stemming only
    best = query(library, "Wie stark verringert Mulchsaat den Bodenabtrag?", config=english)
    assert best["results"][0]["citekey"] == "hennig2019erosion"
