"""Page labels: the printed page labels given to each page, against the per-page truth of
benchmarks/data/page_labels_truth.json (tuned) and page_labels_heldout.json (held out), as
printed and as cited (the library's range where the printing differs), and the disagreements
with the library found. Outcome per file: the rule that labelled it, its pages right, the first
wrong ones. Benchmark: benchmarks/page_labels.py."""

from __future__ import annotations

import pytest
from benchmarks import page_labels

from tests.conftest import CORPUS
from tests.quality.floors import Figure, hold, share

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]


def outcome(s: page_labels.FileScore) -> str:
    said = f"{s.source}: {s.right}/{s.pages} pages right"
    if s.disagree:
        said += f"; {s.disagree}"
    return said + "".join(f"; {line}" for line in s.wrong[:2])


def test_pages_carry_the_labels_printed_on_them(quality_project):
    results = page_labels.measure(quality_project(CORPUS).converter, CORPUS)
    figures: list[Figure] = []
    outcomes = {}
    for name, scores in results.items():
        f = page_labels.set_figures(scores)
        files = {f"{name}/{s.name}": s for s in scores}
        outcomes |= {item: outcome(s) for item, s in files.items()}
        fallback = [i for i, s in files.items() if s.source == "pdf-page" and s.wrong]
        figures += [
            Figure(
                f"{name}: labelled as printed",
                f.right,
                f.pages,
                against=tuple(i for i, s in files.items() if s.wrong),
            ),
            Figure(
                f"{name}: labelled as cited",
                f.as_cited,
                f.pages,
                against=tuple(i for i, s in files.items() if s.right_as_cited < s.pages),
            ),
        ]
        implied = {i: s.disagree is not None for i, s in files.items() if s.truth_disagrees}
        if implied:  # a file whose printing differs from its library entry's: each one found
            figures.append(share(f"{name}: disagreements found", implied, margin=0))
        figures += [
            # a disagreement the truth does not imply relabels a whole file: none may appear
            share(
                f"{name}: disagreements invented",
                {i: s.disagree is not None and not s.truth_disagrees for i, s in files.items()},
                lower=True,
                margin=0,
            ),
            # the PDF page where a label was printed: the wrong page is cited, silently
            Figure(
                f"{name}: wrong on the PDF-page fallback",
                f.fallback_wrong,
                f.pages,
                lower=True,
                margin=0,
                against=tuple(fallback),
            ),
        ]
    hold("page_labels", __doc__, figures, outcomes, __file__)
