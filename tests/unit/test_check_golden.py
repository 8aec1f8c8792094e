"""The judge on what it read for every claim of the check benchmarks, without the model, the
index or ../shared: each claim's content and its cited page's best-aligned spans with their
dense similarities, as ``benchmarks/check_golden.py`` stored them (tests/data/
check_judge_inputs.json), judged again through ``domain.alignment`` (alignment, every fact
slot with the antonyms the application reads, the verdict). The four figures a pre-commit
hook lives by, per set and half, are held to their floors (tests/quality/stored/
check_golden.json): false claims judged supported and correct claims failing the hook may not
rise; false claims failing and correct claims supported may not fall. A rule change shows its
effect here in seconds, item by item; the quality test over the real project
(tests/quality/test_check_quality.py) remains the measure.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeloom.adapters.lexicon import antonyms
from citeloom.domain.abbreviations import ShortForms
from citeloom.domain.alignment import (
    DEFAULT_THRESHOLDS,
    ClaimContent,
    Span,
    align,
    judge,
    run_similarity,
)
from citeloom.domain.claims import claim_numbers
from citeloom.domain.text import fold
from citeloom.services.evidence import sentence_key
from tests.quality.floors import Figure, hold

INPUTS = Path(__file__).parents[1] / "data" / "check_judge_inputs.json"
FAILING = frozenset({"mismatch", "not-found"})  # the judge's verdicts a hook fails on


def verdicts() -> Iterator[tuple[dict[str, Any], str]]:
    """Each stored claim with the verdict the judge gives it today."""
    data = json.loads(INPUTS.read_text(encoding="utf-8"))
    texts: dict[str, str] = data["sentences"]
    forms = {
        key: ShortForms({k: frozenset(v) for k, v in f.items()})
        for key, f in data["papers"].items()
    }
    for item in data["items"]:
        content = ClaimContent(
            item["claim"],
            item["weights"],
            tuple(claim_numbers(item["claim"], item["ignore_numbers"])),
            frozenset(item["ignore_names"]),
            frozenset(item["ignore_numbers"]),
            fold(" ; ".join(item["paper_names"])),
            frozenset(item["context"]),
        )
        spans = [
            Span(page, tuple(texts[k] for k in keys), body) for page, body, keys in item["spans"]
        ]
        cosines, pairs = item["claim_cosines"], item["pair_dots"]

        def cosine(sentence: str, cosines: dict[str, float] = cosines) -> float:
            return cosines[sentence_key(sentence)]

        def pair(a: str, b: str, pairs: dict[str, float] = pairs) -> float:
            return pairs["|".join(sorted((sentence_key(a), sentence_key(b))))]

        short_forms = forms[item["citekey"]]
        found = align(content, spans, lambda s: run_similarity(s, cosine, pair), short_forms)
        outcome = judge(content, found, DEFAULT_THRESHOLDS, short_forms, antonyms=antonyms())
        yield item, outcome.outcome


def test_the_judge_holds_its_figures_on_claims_it_was_not_written_for():
    if not INPUTS.exists():
        pytest.fail(f"{INPUTS} is missing: run .venv/bin/python benchmarks/check_golden.py")
    rows = list(verdicts())
    outcomes = {f"{item['set']}/{item['id']}": got for item, got in rows}
    figures = []
    groups = sorted({(item["set"], item["half"]) for item, _ in rows})
    for name, half in groups:
        mine = [(item, got) for item, got in rows if (item["set"], item["half"]) == (name, half)]
        true = [(i, g) for i, g in mine if i["correct"]]
        false = [(i, g) for i, g in mine if not i["correct"]]

        def listed(
            pairs: list[tuple[dict[str, Any], str]],
            wrong: set[str] | frozenset[str],
            keep: bool,
            name: str = name,
        ) -> tuple[str, ...]:
            return tuple(f"{name}/{i['id']}" for i, g in pairs if (g in wrong) != keep)

        where = f"{name} {half}"
        if false:
            figures += [
                Figure(
                    f"{where}: false claims supported",
                    sum(g == "supported" for _, g in false),
                    len(false),
                    lower=True,
                    against=listed(false, {"supported"}, False),
                ),
                Figure(
                    f"{where}: false claims failing",
                    sum(g in FAILING for _, g in false),
                    len(false),
                    against=listed(false, FAILING, True),
                ),
            ]
        if true:
            figures += [
                Figure(
                    f"{where}: correct claims failing",
                    sum(g in FAILING for _, g in true),
                    len(true),
                    lower=True,
                    against=listed(true, FAILING, False),
                ),
                Figure(
                    f"{where}: correct claims supported",
                    sum(g == "supported" for _, g in true),
                    len(true),
                    against=listed(true, {"supported"}, True),
                ),
            ]
    hold("check_golden", __doc__.split("\n\n")[0], figures, outcomes, __file__)
