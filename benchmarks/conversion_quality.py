"""Conversion quality against Docling's own ground truth, and titles of real papers.

For every PDF in ../shared/corpus/docling-gt/ with a ``.groundtruth.json`` beside it (the
DoclingDocument Docling's trained layout model produced), citeloom's converter runs and the
output is compared with it:

- section headers: precision, recall, F1 (folded text, same page, one-to-one);
- page attribution: of the ground truth's body text (by characters) that citeloom's output
  contains, the share found on the same page;
- coverage: the share of ground-truth body characters found at all.

With ``--papers`` it also converts ../shared/corpus/papers/ and reports whether the title found
on page 1 equals the title of the paper's CSL entry (tests/data/papers.csl.json), and lists the
headings for a check by eye. With ``--replacements`` it counts, per PDF of docling-gt/, papers/
and paginated/, the replacement characters (U+FFFD) in the conversion and those beside a
letter, against those beside a letter in poppler's ``pdftotext`` text of the same PDF: a
character a reader sees printed that the conversion lost (ADR 0035). ``--dump DIR`` writes
every conversion (blocks, title, OCR pages, warnings, margin text) to DIR as JSON, so that two
versions of the converter can be compared with ``diff -r``. Run:

    .venv/bin/python benchmarks/conversion_quality.py [--papers] [--replacements] [--show-headers]
        [--dump DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rapidfuzz import fuzz

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.corpora import CORPUS  # noqa: E402
from citeloom.adapters.conversion.docling_converter import DoclingConverter  # noqa: E402
from citeloom.domain.ids import sha256_of_file  # noqa: E402
from citeloom.domain.models import BlockKind, ConvertedDocument  # noqa: E402
from citeloom.domain.text import fold_for_match  # noqa: E402
from citeloom.ports import Converter  # noqa: E402

HEADER_KINDS = {BlockKind.HEADING, BlockKind.TITLE}
BODY_LABELS = {"text", "list_item", "paragraph", "caption", "footnote", "code"}


@dataclass
class Score:
    name: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    same_page_chars: int = 0
    found_chars: int = 0
    total_chars: int = 0
    seconds: float = 0.0
    pages: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def page_attribution(self) -> float:
        return self.same_page_chars / self.found_chars if self.found_chars else 1.0

    @property
    def coverage(self) -> float:
        return self.found_chars / self.total_chars if self.total_chars else 1.0


def ground_truth(path: Path) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(headers, body texts) of a ground-truth DoclingDocument, each with its page."""
    from docling_core.types.doc import DoclingDocument

    doc = DoclingDocument.load_from_json(path)
    headers, body = [], []
    for item, _ in doc.iterate_items():
        label = str(item.label)
        text = getattr(item, "text", "")
        if not text or not item.prov:
            continue
        page = item.prov[0].page_no
        if label in ("section_header", "title"):
            headers.append((text, page))
        elif label in BODY_LABELS:
            body.append((text, page))
    return headers, body


def match_headers(
    truth: list[tuple[str, int]], found: list[tuple[str, int]], score: Score
) -> list[str]:
    """One-to-one matching on folded text (fuzzy >= 90) and the same page."""
    remaining = [(fold_for_match(t), p) for t, p in found]
    misses = []
    for text, page in truth:
        key = fold_for_match(text)
        best = max(
            (i for i, (t, p) in enumerate(remaining) if p == page),
            key=lambda i: fuzz.ratio(key, remaining[i][0]),
            default=None,
        )
        if best is not None and fuzz.ratio(key, remaining[best][0]) >= 90:
            score.tp += 1
            remaining.pop(best)
        else:
            score.fn += 1
            misses.append(f"  missed  p{page}: {text[:70]}")
    score.fp += len(remaining)
    misses.extend(f"  extra   p{p}: {t[:70]}" for t, p in remaining)
    return misses


def attribute_pages(body: list[tuple[str, int]], doc: ConvertedDocument, score: Score) -> None:
    pages: dict[int, str] = {}
    for block in doc.blocks:
        if block.page is not None:
            pages[block.page] = pages.get(block.page, "") + " " + fold_for_match(block.text)
    for text, page in body:
        key = fold_for_match(text)
        if len(key) < 12:
            continue
        score.total_chars += len(key)
        ranked = sorted(
            ((fuzz.partial_ratio(key, content), p) for p, content in pages.items()), reverse=True
        )
        if not ranked or ranked[0][0] < 85:
            continue
        score.found_chars += len(key)
        if page in {p for s, p in ranked if s >= ranked[0][0] - 0.5}:
            score.same_page_chars += len(key)


def dump(folder: Path | None, pdf: Path, doc: ConvertedDocument) -> None:
    """The conversion as JSON, without the converter id and the path (which name the version
    and where the file was read)."""
    if folder is None:
        return
    data = asdict(doc)
    data.pop("converter")
    data.pop("source_path")
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    (folder / f"{pdf.name}.json").write_text(text, encoding="utf-8")


def docling_gt(
    converter: Converter, show: bool = False, out: Path | None = None, corpus: Path = CORPUS
) -> list[Score]:
    """Each ground-truth document of ``corpus``/docling-gt converted and scored (the quality
    tests call this too, with the conversion cache of their project)."""
    scores = []
    for gt_path in sorted((corpus / "docling-gt").glob("*.groundtruth.json")):
        pdf = gt_path.with_name(gt_path.name.replace(".groundtruth.json", ".pdf"))
        start = time.perf_counter()
        doc = converter.convert(pdf, sha256_of_file(pdf))
        score = Score(pdf.name, seconds=time.perf_counter() - start, pages=doc.page_count or 0)
        dump(out, pdf, doc)
        truth_headers, truth_body = ground_truth(gt_path)
        found = [(b.text, b.page or 0) for b in doc.blocks if b.kind in HEADER_KINDS]
        misses = match_headers(truth_headers, found, score)
        attribute_pages(truth_body, doc, score)
        scores.append(score)
        if show and misses:
            print(f"{pdf.name}:")
            print("\n".join(misses))
    return scores


def micro_average(scores: list[Score]) -> Score:
    total = Score("micro-average")
    for s in scores:
        for field in ("tp", "fp", "fn", "same_page_chars", "found_chars", "total_chars", "pages"):
            setattr(total, field, getattr(total, field) + getattr(s, field))
        total.seconds += s.seconds
    return total


def print_table(scores: list[Score]) -> Score:
    total = micro_average(scores)
    head = (
        f"{'document':32} {'P':>5} {'R':>5} {'F1':>5} {'tp/fp/fn':>9} "
        f"{'page':>6} {'cover':>6} {'s/page':>7}"
    )
    print(head)
    print("-" * len(head))
    for s in [*scores, total]:
        per_page = s.seconds / s.pages if s.pages else 0.0
        print(
            f"{s.name[:32]:32} {s.precision:5.2f} {s.recall:5.2f} {s.f1:5.2f} "
            f"{f'{s.tp}/{s.fp}/{s.fn}':>9} {s.page_attribution:6.3f} {s.coverage:6.3f} "
            f"{per_page:7.2f}"
        )
    return total


@dataclass
class Title:
    """The title found on a paper's first page against its library entry's."""

    pdf: Path
    document: ConvertedDocument
    seconds: float
    expected: bool  # the paper has an entry in the library
    found: bool  # the title found is the entry's (folded)


def paper_titles(converter: Converter, corpus: Path = CORPUS) -> list[Title]:
    """Every paper of ``corpus``/papers converted, its title held to tests/data/papers.csl.json
    through benchmarks/data/papers_truth.json (the quality tests call this too)."""
    refs = json.loads((ROOT / "tests" / "data" / "papers.csl.json").read_text())
    titles = {r["citation-key"]: fold_for_match(r["title"]) for r in refs}
    truth = json.loads((ROOT / "benchmarks" / "data" / "papers_truth.json").read_text())
    out = []
    for pdf in sorted((corpus / "papers").glob("*.pdf")):
        start = time.perf_counter()
        doc = converter.convert(pdf, sha256_of_file(pdf))
        seconds = time.perf_counter() - start
        entry = truth.get(pdf.name)
        ok = bool(doc.title and entry) and fold_for_match(doc.title or "") == titles[entry]
        out.append(Title(pdf, doc, seconds, entry is not None, ok))
    return out


def papers(converter: DoclingConverter, show: bool, out: Path | None) -> None:
    print(f"\n{'paper':38} {'pages':>5} {'title':>6} {'s/page':>7}  title found")
    found = paper_titles(converter)
    for title in found:
        doc = title.document
        dump(out, title.pdf, doc)
        print(
            f"{title.pdf.name[:38]:38} {doc.page_count:5} {'yes' if title.found else 'no':>6} "
            f"{title.seconds / (doc.page_count or 1):7.2f}  {doc.title!r:.70}"
        )
        if show:
            for block in doc.blocks:
                if block.kind is BlockKind.HEADING:
                    print(f"      p{block.page} L{block.level} {block.text[:80]}")
    right, expected = sum(t.found for t in found), sum(t.expected for t in found)
    print(f"titles found: {right} of {expected} papers with a reference entry")


REPLACEMENT = "\ufffd"
_BESIDE_LETTER = re.compile(f"(?<=[^\\W\\d_]){REPLACEMENT}|{REPLACEMENT}(?=[^\\W\\d_])")


@dataclass
class Replacements:
    """The replacement characters of one PDF's conversion, and the reference: those beside a
    letter in pdftotext's text (None without pdftotext)."""

    pdf: str  # folder/name under the corpus
    total: int
    beside_letter: int
    reference: int | None

    @property
    def letters_lost(self) -> bool:
        """A replacement character beside a letter where pdftotext reads the letters."""
        return self.beside_letter > (self.reference or 0)

    def outcome(self) -> str:
        told = "no pdftotext" if self.reference is None else f"pdftotext {self.reference}"
        return f"{self.total} replacement characters, {self.beside_letter} beside a letter ({told})"


def beside_letter(text: str) -> int:
    return len(_BESIDE_LETTER.findall(text))


def pdftotext_text(pdf: Path) -> str | None:
    """poppler's reading of ``pdf`` (None without pdftotext, or if it fails)."""
    if shutil.which("pdftotext") is None:
        return None
    done = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, check=False)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def replacement_characters(converter: Converter, corpus: Path = CORPUS) -> list[Replacements]:
    """Each PDF of docling-gt/, papers/ and paginated/ converted, its replacement characters
    counted (the quality tests call this too, with the conversion cache of their project)."""
    out = []
    for folder in ("docling-gt", "papers", "paginated"):
        for pdf in sorted((corpus / folder).glob("*.pdf")):
            doc = converter.convert(pdf, sha256_of_file(pdf))
            text = "\n".join(b.text for b in doc.blocks)
            reference = pdftotext_text(pdf)
            out.append(
                Replacements(
                    f"{folder}/{pdf.name}",
                    text.count(REPLACEMENT),
                    beside_letter(text),
                    None if reference is None else beside_letter(reference),
                )
            )
    return out


def print_replacements(found: list[Replacements]) -> None:
    print(f"\n{'PDF':48} {'U+FFFD':>7} {'by a letter':>11} {'pdftotext':>9}")
    for r in found:
        if r.total or r.reference:
            reference = "-" if r.reference is None else str(r.reference)
            print(f"{r.pdf[:48]:48} {r.total:7} {r.beside_letter:11} {reference:>9}")
    total = sum(r.total for r in found)
    beside = sum(r.beside_letter for r in found)
    lost = sum(r.letters_lost for r in found)
    print(
        f"replacement characters: {total} in {len(found)} PDFs, {beside} beside a letter; "
        f"PDFs where pdftotext reads letters the conversion lost: {lost}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", action="store_true", help="also report titles of the papers")
    parser.add_argument(
        "--replacements", action="store_true", help="count U+FFFD per PDF against pdftotext"
    )
    parser.add_argument("--show-headers", action="store_true", help="list misses and headings")
    parser.add_argument("--dump", type=Path, help="write every conversion to this folder")
    args = parser.parse_args()
    import logging

    logging.getLogger("docling").setLevel(logging.ERROR)
    converter = DoclingConverter()
    total = print_table(docling_gt(converter, args.show_headers, args.dump))
    print(
        f"\ntargets: section-header F1 >= 0.85 (got {total.f1:.3f}), "
        f"page attribution >= 0.99 (got {total.page_attribution:.4f}); titles: none of these "
        "ground-truth documents labels a title (n/a here; --papers checks the papers' titles)"
    )
    if args.papers:
        papers(converter, args.show_headers, args.dump)
    if args.replacements:
        print_replacements(replacement_characters(converter))


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
