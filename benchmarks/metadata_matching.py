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
paginated_truth.json. Wrong must be zero. ``--format biblatex`` (or ``bibtex``) reads each
set's library as pandoc writes it in that format (under benchmarks/.work, never stored): a
``.bib`` library must match as its CSL-JSON twin does. Run:

    .venv/bin/python benchmarks/metadata_matching.py [--set papers|paginated|covered]
        [--format csljson|biblatex|bibtex]
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.corpora import CORPUS  # noqa: E402
from benchmarks.cover_page import with_cover  # noqa: E402
from citeloom.adapters.conversion.docling_converter import DoclingConverter  # noqa: E402
from citeloom.adapters.csl_references import CslMetadataResolver  # noqa: E402
from citeloom.domain.ids import sha256_of_file  # noqa: E402
from citeloom.domain.models import MetadataMatch  # noqa: E402
from citeloom.ports import Converter  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
WORK = ROOT / "benchmarks" / ".work" / "covered"
# set -> (its folder of the corpus, its library, its truth file)
SETS = {
    "papers": ("papers", ROOT / "tests" / "data" / "papers.csl.json", "papers_truth"),
    "paginated": ("paginated", DATA / "paginated.csl.json", "paginated_truth"),
    "covered": ("papers", ROOT / "tests" / "data" / "papers.csl.json", "papers_truth"),
}
VERDICTS = ("right", "wrong", "unmatched", "correctly unmatched")
# papers whose page 1 has no title block of its own (a scan, an image page, a cover already):
# a second cover before them says nothing new
NO_TITLE_BLOCK = {"grobid_ZFN-A-054-0304-0272.pdf", "grobid_two_pages.pdf"}


@dataclass(frozen=True)
class Matched:
    """One PDF's match against its set's library, and the verdict on it."""

    file_name: str
    expected: str | None
    match: MetadataMatch
    seconds: float

    @property
    def verdict(self) -> str:
        got = self.match.citekey
        if got is None:
            return "correctly unmatched" if self.expected is None else "unmatched"
        return "right" if got == self.expected else "wrong"


def library_file(name: str, form: str = "csljson", work: Path = WORK.parent) -> Path:
    """Set ``name``'s library, as stored (``csljson``) or written by pandoc as ``form``."""
    library = SETS[name][1]
    if form == "csljson":
        return library
    twin = work / f"{library.stem}.{form}.bib"
    twin.parent.mkdir(parents=True, exist_ok=True)
    pandoc = ["pandoc", "-f", "csljson", "-t", form, str(library), "-o", str(twin)]
    subprocess.run(pandoc, check=True)
    return twin


def match_set(
    converter: Converter,
    name: str,
    corpus: Path = CORPUS,
    work: Path = WORK,
    library: Path | None = None,
) -> list[Matched]:
    """Every PDF of set ``name`` converted and matched to the set's library (the quality tests
    call this too, with the conversion cache of their project; ``work``: where the covered
    copies are written)."""
    folder, stored, truth_name = SETS[name]
    truth = json.loads((DATA / f"{truth_name}.json").read_text())
    resolver = CslMetadataResolver(library or stored)
    out = []
    for file_name, expected in sorted(truth.items()):
        if file_name.startswith("_"):
            continue
        path = corpus / folder / file_name
        if name == "covered":
            if file_name in NO_TITLE_BLOCK or expected is None:
                continue
            path = with_cover(path, work / file_name)
        start = time.perf_counter()
        document = converter.convert(path, sha256_of_file(path))
        match = resolver.resolve(document, hint=Path(file_name).stem)
        out.append(Matched(file_name, expected, match, time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append", help="default: all")
    parser.add_argument("--format", choices=("csljson", "biblatex", "bibtex"), default="csljson")
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    converter = DoclingConverter()
    totals: dict[str, Counter[str]] = {}
    for name in args.set or list(SETS):
        print(f"\n{name}: {'paper':36} {'expected':28} {'got':28} {'how':6} {'s':>5}  verdict")
        rows = match_set(converter, name, library=library_file(name, args.format))
        totals[name] = Counter({verdict: 0 for verdict in VERDICTS})
        totals[name].update(row.verdict for row in rows)
        for row in rows:
            match = row.match
            note = (
                f" ({match.problem}: {[(c.citekey, c.score) for c in match.candidates[:2]]})"
                if match.problem
                else ""
            )
            print(
                f"{name:>9} {row.file_name[:36]:36} {row.expected!s:28} {match.citekey!s:28} "
                f"{match.kind!s:6} {row.seconds:5.1f}  {row.verdict}{note}"
            )
    print()
    for name, counts in totals.items():
        entries = len(CslMetadataResolver(library_file(name, args.format)).references())
        print(
            f"{name}: {sum(counts.values())} papers, {entries} library entries "
            f"({args.format}): " + ", ".join(f"{k} {counts[k]}" for k in VERDICTS)
        )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
