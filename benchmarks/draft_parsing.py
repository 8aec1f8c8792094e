"""How reading a draft's citations grows with the draft's length, on hostile drafts.

A quadratic parser once froze ``citeloom serve`` for 50 s on one /check; a linear one reads a
1 MB draft in about 100 times the time of a 10 KB one. Prints, for each hostile draft of
tests/unit/test_draft_citations.py, the best of 5 runs at 10 KB, one run at 1 MB and their
ratio, with the load average. Run:

    .venv/bin/python benchmarks/draft_parsing.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.unit.test_draft_citations import HOSTILE  # noqa: E402

from citeloom.domain.draft_citations import find_citations  # noqa: E402


def seconds(text: str) -> float:
    started = time.perf_counter()
    find_citations(text)
    return time.perf_counter() - started


def main() -> None:
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'hostile draft':38} {'10 KB':>9} {'1 MB':>9} {'ratio':>7}")
    for name, make in HOSTILE.items():
        small = min(seconds(make(10_000)) for _ in range(5))
        big = seconds(make(1_000_000))
        ratio = big / max(small, 1e-6)
        print(f"{name:38} {small * 1000:7.2f}ms {big * 1000:7.1f}ms {ratio:7.0f}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (linear: a ratio near 100)")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
