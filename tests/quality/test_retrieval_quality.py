"""Retrieval: hit@1 and hit@5 of the default hybrid query per half and kind of
benchmarks/data/paper_queries.json, and its "not confident" flag, on the quality project
(papers/, paginated/ and the examples: more distractors than the benchmark's papers/ alone).
Outcome per query: the rank of the first passage on an expected page of the expected paper.
Benchmark: benchmarks/eval_papers.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from benchmarks import paper_queries
from benchmarks.metrics import hit_at

from citeloom.services.query import QueryOptions
from citeloom.services.usecases.query import QUERY, QueryRequest
from tests.conftest import CORPUS
from tests.quality.conftest import PROJECT
from tests.quality.floors import Figure, hold, share

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]


def outcome(o: paper_queries.Outcome) -> str:
    rank = next((i for i, hit in enumerate(o.hits, start=1) if hit), None)
    if o.query["citekey"] is None:
        said = "no paper to find"
    else:
        said = f"rank {rank}" if rank else f"not in the top {len(o.hits)}"
    return said + (", not confident" if o.abstained else "")


def searched(app: Any, per_doc: int | None) -> Callable[[dict], tuple[list[tuple], bool, float]]:
    """``eval_papers.service_search`` through the application: each query a request of the
    query use case, as every door sends it."""

    def search(query: dict) -> tuple[list[tuple], bool, float]:
        request = QueryRequest(project=PROJECT, query=query["query"], top_k=10, per_doc=per_doc)
        response = app.run(QUERY, request)
        results = [(r.citekey, r.page_start, r.page_end) for r in response.results]
        return results, not response.answerable, response.confidence

    return search


def test_the_right_page_of_the_right_paper_comes_first(quality_project):
    app = quality_project(CORPUS).app()
    search = searched(app, QueryOptions().per_doc)
    outcomes = paper_queries.run(paper_queries.load(), search)
    named = {f"{o.query['kind']}: {o.query['query'][:70]}": o for o in outcomes}
    figures: list[Figure] = []
    for half in paper_queries.HALVES:
        mine = {item: o for item, o in named.items() if paper_queries.half(o.query) == half}
        answerable = {item: o for item, o in mine.items() if o.query["citekey"] is not None}
        for kind in [*paper_queries.KINDS[:-1], "all"]:
            chosen = {i: o for i, o in answerable.items() if kind in ("all", o.query["kind"])}
            assert chosen, f"no {kind} query in the {half} half"
            for k in (1, 5):
                hits = {i: bool(hit_at(o.hits, k)) for i, o in chosen.items()}
                figures.append(share(f"{half} {kind} hit@{k}", hits))
        unanswerable = {i: o.abstained for i, o in mine.items() if o.query["citekey"] is None}
        figures += [
            # an answerable query flagged "not confident": the user doubts a right answer
            share(
                f"{half} answerable flagged not confident",
                {i: o.abstained for i, o in answerable.items()},
                lower=True,
            ),
            share(f"{half} unanswerable flagged not confident", unanswerable),
        ]
    hold("retrieval", __doc__, figures, {i: outcome(o) for i, o in named.items()}, __file__)
