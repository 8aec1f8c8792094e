"""check: the verdicts on the citations of benchmarks/check_claims.py, each claim cited to its
page, a far page, another paper and no page: hand-written claims, the authors' own
restatements, body sentences of papers/ and paginated/ with their automatic perturbations
(fewer sentences per paper than the benchmark), all through CheckService on the quality
project; and sentences of docling-gt/ and of sampled abstracts with their perturbations,
judged by the judging core (fewer abstracts than the benchmark). Outcome per citation: its
verdict. Benchmark: benchmarks/check_claims.py (more sentences per paper and abstracts).

The checker is being tuned for recall: after a deliberate change, regenerate these results."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from benchmarks import check_claims
from benchmarks.check_claims import Case

from tests.conftest import CORPUS
from tests.quality.floors import Figure, hold

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]

# all the benchmark's sets, with 8 body sentences a paper (its default: 40) and 20 abstracts
# a collection (its default: 120): seeded, so the same citations every run
PER_PAPER = 8
PER_COLLECTION = 20


def item(case: Case) -> str:
    return f"{case.set}/{case.id}/{case.variant}"


def test_check_supports_what_the_cited_page_states_and_nothing_else(quality_project):
    project = quality_project(CORPUS)
    with project.check_service() as service:  # the application's, its judge read apart
        bench = check_claims.bench_for(
            service, project.config, check_claims.SETS, PER_PAPER, PER_COLLECTION
        )
        results = check_claims.evaluate(service, bench.core, bench.cases, bench.documents)
    rows = [row for rows in results.values() for row in rows]
    scores = check_claims.Scores(rows)

    def against(among: Callable[[Case, str], bool]) -> tuple[str, ...]:
        """The citations among those a figure counts that got a verdict they should not."""
        return tuple(item(c) for c, got in rows if among(c, got) and not c.right(got))

    figures = [
        Figure(
            "supported precision",
            *scores.precision("supported"),
            against=against(lambda c, got: got == "supported"),
        ),
        Figure(
            "mismatch precision",
            *scores.precision("mismatch"),
            against=against(lambda c, got: got == "mismatch"),
        ),
        # a perturbed number, unit, negation or name judged supported: what check is for
        Figure(
            "perturbations judged supported",
            *scores.perturbed_supported(),
            lower=True,
            against=against(lambda c, got: not c.truthful and c.kind not in {"false", "vague"}),
        ),
        Figure(
            "false claims judged supported",
            *scores.false_supported(),
            lower=True,
            against=against(lambda c, got: not c.truthful),
        ),
    ]
    for kind in check_claims.TRUE_KINDS:
        figures.append(
            Figure(
                f"recall {kind}",
                *scores.recall((kind,)),
                against=against(lambda c, got, k=kind: c.variant == "right" and c.kind == k),
            )
        )
    outcomes = {item(c): got for c, got in rows}
    assert len(outcomes) == len(rows), "two citations share an id"
    hold("check", __doc__, figures, outcomes, __file__)
