"""Matching: the PDFs of each set matched to the right library entry, to a wrong one, or to
none (papers/ and paginated/ against their libraries, and papers/ behind a cover page).
Outcome per PDF: the verdict and the citekey matched. Benchmark:
benchmarks/metadata_matching.py."""

from __future__ import annotations

import pytest
from benchmarks import metadata_matching

from tests.conftest import CORPUS
from tests.quality.floors import Figure, hold, share

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]


def test_pdfs_are_matched_to_the_right_entry_and_never_a_wrong_one(quality_project, tmp_path):
    converter = quality_project(CORPUS).converter
    figures: list[Figure] = []
    outcomes = {}
    for name in metadata_matching.SETS:
        rows = metadata_matching.match_set(converter, name, CORPUS, tmp_path / "covered")
        verdicts = {f"{name}/{row.file_name}": row.verdict for row in rows}
        outcomes |= {
            f"{name}/{row.file_name}": f"{row.verdict} ({row.match.citekey})" for row in rows
        }
        right = ("right", "correctly unmatched")
        figures += [
            share(f"{name}: right", {i: v in right for i, v in verdicts.items()}),
            # a wrong match files a paper under another's citekey: not one more
            share(
                f"{name}: wrong",
                {i: v == "wrong" for i, v in verdicts.items()},
                lower=True,
                margin=0,
            ),
            share(
                f"{name}: unmatched", {i: v == "unmatched" for i, v in verdicts.items()}, lower=True
            ),
        ]
    hold("matching", __doc__, figures, outcomes, __file__)
