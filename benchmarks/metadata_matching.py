"""How many real PDFs are matched to the right library entry, wrongly, or not at all.

Three sets, each against its own library:

- ``papers``: the 14 shared papers against tests/data/papers.csl.json, their real metadata
  and decoys written for this benchmark (same authors with similar titles, identical titles
  by other authors, a report and a journal version with the paper's exact title);
- ``paginated``: the 10 articles of ../shared/corpus/paginated against
  benchmarks/data/paginated.csl.json (DOIs printed in a publisher's head, a 1994 preprint
  whose arXiv id is printed bare, ``hep-ph/9412269``);
- ``covered``: the shared papers with a title block, each behind a generated repository
  cover sheet (benchmarks/cover_page.py; written under benchmarks/.work, never stored), so
  their title is on page 2.

The expected entry of each paper is in benchmarks/data/papers_truth.json and
paginated_truth.json. Wrong must be zero. Run:

    .venv/bin/python benchmarks/metadata_matching.py [--set papers|paginated|covered]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.corpora import CORPUS  # noqa: E402
from benchmarks.cover_page import with_cover  # noqa: E402
from citeloom.adapters.conversion.docling_converter import DoclingConverter  # noqa: E402
from citeloom.adapters.csl_references import CslMetadataResolver  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
WORK = ROOT / "benchmarks" / ".work" / "covered"
SETS = {
    "papers": (CORPUS / "papers", ROOT / "tests" / "data" / "papers.csl.json", "papers_truth"),
    "paginated": (CORPUS / "paginated", DATA / "paginated.csl.json", "paginated_truth"),
    "covered": (CORPUS / "papers", ROOT / "tests" / "data" / "papers.csl.json", "papers_truth"),
}
# papers whose page 1 has no title block of its own (a scan, an image page, a cover already):
# a second cover before them says nothing new
NO_TITLE_BLOCK = {"grobid_ZFN-A-054-0304-0272.pdf", "grobid_two_pages.pdf"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append", help="default: all")
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    converter = DoclingConverter()
    totals: dict[str, dict[str, int]] = {}
    for name in args.set or list(SETS):
        folder, library, truth_name = SETS[name]
        truth = json.loads((DATA / f"{truth_name}.json").read_text())
        resolver = CslMetadataResolver(library)
        counts = totals.setdefault(
            name, {"right": 0, "wrong": 0, "unmatched": 0, "correctly unmatched": 0}
        )
        print(f"\n{name}: {'paper':36} {'expected':28} {'got':28} {'how':6} {'s':>5}  verdict")
        for file_name, expected in sorted(truth.items()):
            if file_name.startswith("_"):
                continue
            path = folder / file_name
            if name == "covered":
                if file_name in NO_TITLE_BLOCK or expected is None:
                    continue
                path = with_cover(path, WORK / file_name)
            start = time.perf_counter()
            document = converter.convert(path, "0" * 64)
            match = resolver.resolve(document, hint=Path(file_name).stem)
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
                f"{name:>9} {file_name[:36]:36} {expected!s:28} {got!s:28} {match.kind!s:6} "
                f"{seconds:5.1f}  {verdict}{note}"
            )
    print()
    for name, counts in totals.items():
        entries = len(CslMetadataResolver(SETS[name][1]).references())
        print(
            f"{name}: {sum(counts.values())} papers, {entries} library entries: "
            + ", ".join(f"{k} {v}" for k, v in counts.items())
        )


if __name__ == "__main__":
    main()
