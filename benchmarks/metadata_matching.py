"""How many of the shared papers are matched to the right library entry, wrongly, or not at all.

The library (tests/data/papers.csl.json) holds the papers' real metadata and decoys written for
this benchmark: same authors with similar titles, identical titles by other authors, a report
and a journal version with the paper's exact title. The expected entry of each paper is in
benchmarks/data/papers_truth.json. Wrong must be zero. Run:

    .venv/bin/python benchmarks/metadata_matching.py
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "corpus" / "papers"
sys.path.insert(0, str(ROOT / "src"))

from citeloom.adapters.conversion.docling_converter import DoclingConverter  # noqa: E402
from citeloom.adapters.csl_references import CslMetadataResolver  # noqa: E402


def main() -> None:
    logging.getLogger("docling").setLevel(logging.ERROR)
    truth = json.loads((ROOT / "benchmarks" / "data" / "papers_truth.json").read_text())
    resolver = CslMetadataResolver(ROOT / "tests" / "data" / "papers.csl.json")
    converter = DoclingConverter()
    counts = {"right": 0, "wrong": 0, "unmatched": 0, "correctly unmatched": 0}
    print(f"{'paper':36} {'expected':28} {'got':28} {'how':6} {'s':>5}  verdict")
    for name, expected in sorted(truth.items()):
        if name.startswith("_"):
            continue
        start = time.perf_counter()
        match = resolver.resolve(converter.convert(PAPERS / name, "0" * 64), hint=Path(name).stem)
        seconds = time.perf_counter() - start
        got = match.citekey
        if got is None:
            verdict = "correctly unmatched" if expected is None else "unmatched"
        else:
            verdict = "right" if got == expected else "wrong"
        counts[verdict] += 1
        note = (
            f" ({match.problem}: {[(c.citekey, c.score) for c in match.candidates[:2]]})"
            if match.problem
            else ""
        )
        print(
            f"{name[:36]:36} {expected!s:28} {got!s:28} {match.kind!s:6} "
            f"{seconds:5.1f}  {verdict}{note}"
        )
    total = sum(counts.values())
    print(
        f"\n{total} papers, {len(resolver.references())} library entries: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
    )


if __name__ == "__main__":
    main()
