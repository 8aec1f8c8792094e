"""Today's quality figures held to stored floors, and the switch that regenerates them.

Each area (conversion, page labels, matching, retrieval, check, answer) keeps its stored
results in ``tests/quality/stored/<area>.json``: every item's outcome (which rank a query hit
at, which verdict a citation got, which entry a PDF matched) and, per figure, the floor
(``at_least``) or ceiling (``at_most``) a change may not cross, with the figure it was set
from. A quality test measures its items with the benchmark script's own functions (each measure
lives once: the benchmark computes and prints, the test compares) and hands the figures and
outcomes to ``hold``. A figure past its bound fails the test with its name, the figure, the
bound, the stored figure, and the items behind the fall whose outcome changed.

The floors sit a little under today's figures (one item, or SHARE_MARGIN of a share, whichever
is more), so a real regression fails while a run that converts, ingests and searches the same
files the same way passes.

``CITELOOM_REGENERATE=1`` rewrites the stored results of each area it runs from today's
outcomes instead of comparing, as Docling's ``GEN_TEST_DATA`` does for its ground truth (the
same switch rewrites tests/data/csl_fixtures_expected.json). After a deliberate change, run the
quality tests with it and review the diff of tests/quality/stored/ before committing it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

STORED = Path(__file__).with_name("stored")
COMMAND = ".venv/bin/python -m pytest -m quality"
# a share may lose one item or 2 points, whichever is more, before it fails: a query, a page or
# a file of a small set is one item, and 2 points of the 250 answerable queries is 5 of them
SHARE_MARGIN = 0.02
SHOWN = 12  # items listed per figure that crossed its bound


@dataclass(frozen=True)
class Figure:
    """``right`` of ``total`` items (or pages, or characters). ``lower``: a count that must
    stay low (wrong matches, perturbations judged supported), held to a ceiling instead of a
    floor. ``margin``: how far, as a share, it may move the wrong way (default: one item, or
    SHARE_MARGIN for a figure that should be high, whichever is more). ``against``: the items
    that count against it, listed (those whose outcome changed) when it crosses its bound."""

    name: str
    right: float
    total: float
    lower: bool = False
    margin: float | None = None
    against: tuple[str, ...] = ()

    @property
    def value(self) -> float:
        return self.right / self.total if self.total else 0.0

    def bound(self) -> float:
        """The floor (or the ceiling of a ``lower`` figure) set from today's value."""
        one = 1 / self.total if self.total else 0.0
        if self.margin is not None:
            margin = self.margin
        else:
            margin = one if self.lower else max(one, SHARE_MARGIN)
        if self.lower:
            return min(1.0, math.ceil(round((self.value + margin) * 1e4, 6)) / 1e4)
        return max(0.0, math.floor(round((self.value - margin) * 1e4, 6)) / 1e4)

    def stored(self) -> dict[str, float]:
        bound = "at_most" if self.lower else "at_least"
        return {bound: self.bound(), "today": round(self.value, 4), "of": self.total}

    def shown(self) -> str:
        return _shown(self.value, self.total)

    def crossed(self, line: Mapping[str, float]) -> bool:
        if self.lower:
            return self.value > line["at_most"] + 1e-9
        return self.value < line["at_least"] - 1e-9


def share(
    name: str, flags: Mapping[str, bool], *, lower: bool = False, margin: float | None = None
) -> Figure:
    """The share of the items of ``flags`` (item -> counts) that count; against it stand the
    items that do not (or, for a ``lower`` figure, those that do)."""
    against = tuple(sorted(item for item, flag in flags.items() if flag == lower))
    return Figure(name, sum(flags.values()), len(flags), lower, margin, against)


def _shown(value: float, of: float) -> str:
    if float(of).is_integer() and of < 100_000:
        return f"{value:.3f} ({round(value * of)}/{int(of)})"
    return f"{value:.4f}"


def path_of(area: str) -> Path:
    return STORED / f"{area}.json"


def read(area: str) -> dict | None:
    path = path_of(area)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def regenerating() -> bool:
    return os.environ.get("CITELOOM_REGENERATE") == "1"


def regenerate_command(test_file: str) -> str:
    """The command that rewrites a test's stored results: a quality test's under its marker,
    a fast test's (the judge's golden inputs) as it is."""
    path = Path(test_file)
    if path.parent.name == "quality":
        return f"CITELOOM_REGENERATE=1 {COMMAND} tests/quality/{path.name}"
    return f"CITELOOM_REGENERATE=1 .venv/bin/python -m pytest tests/{path.parent.name}/{path.name}"


def write(
    area: str, about: str, figures: list[Figure], outcomes: Mapping[str, str], test_file: str
) -> None:
    stored = {
        "about": about,
        "regenerate": regenerate_command(test_file),
        "floors": {f.name: f.stored() for f in figures},
        "outcomes": dict(sorted(outcomes.items())),
    }
    STORED.mkdir(exist_ok=True)
    text = json.dumps(stored, indent=1, ensure_ascii=False) + "\n"
    path_of(area).write_text(text, encoding="utf-8")


def changes(figure: Figure, before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The items against ``figure`` whose outcome differs from the stored one."""
    lines = []
    for item in figure.against:
        was, got = before.get(item, "(not stored)"), now.get(item, "(not measured)")
        if was != got:
            lines.append(f"{item}: {was} -> {got}")
    if len(lines) > SHOWN:
        lines = [*lines[:SHOWN], f"... and {len(lines) - SHOWN} more"]
    return lines


def hold(
    area: str, about: str, figures: list[Figure], outcomes: Mapping[str, str], test_file: str
) -> None:
    """Compare the area's figures with their stored bounds (or, regenerating, rewrite the
    area's stored results from today's). Every figure that crossed its bound is named in one
    failure, with what it fell to, what it was, the items that changed, and how to regenerate
    if the change was intended."""
    names = [f.name for f in figures]
    assert len(set(names)) == len(names), f"{area}: a figure measured twice: {names}"
    if regenerating():
        write(area, about, figures, outcomes, test_file)
    how = (
        f"If the change is intended, regenerate the stored results with "
        f"`{regenerate_command(test_file)}` and review the diff of {path_of(area).name}."
    )
    stored = read(area)
    if stored is None:
        pytest.fail(f"{path_of(area)} is not there. {how}", pytrace=False)
    floors, before = stored["floors"], stored["outcomes"]
    problems = []
    for figure in figures:
        line = floors.get(figure.name)
        if line is None:
            problems.append(f"{figure.name}: {figure.shown()} has no stored bound")
            continue
        if figure.total != line["of"]:
            problems.append(
                f"{figure.name}: measured over {figure.total:g} items, stored over "
                f"{line['of']:g} (a truth file changed? regenerate)"
            )
            continue
        if figure.crossed(line):
            moved = "rose" if figure.lower else "fell"
            bound = (
                f"over its ceiling {line['at_most']:.4f}"
                if figure.lower
                else (f"under its floor {line['at_least']:.4f}")
            )
            was = _shown(line["today"], line["of"])
            problems.append(f"{figure.name} {moved} to {figure.shown()} from {was}, {bound}")
            problems += [f"    {change}" for change in changes(figure, before, outcomes)]
    gone = sorted(set(floors) - set(names))
    if gone:
        problems.append(f"no longer measured: {', '.join(gone)}")
    if problems:
        listing = "\n  ".join(problems)
        pytest.fail(f"{area} quality fell:\n  {listing}\n{how}", pytrace=False)
