"""Does ``citeloom answer`` abstain when the library cannot answer, and only then?

benchmarks/data/answer_questions.json holds questions written by reading the shared papers
and the bundled examples:

- ``unanswerable``: each names something no document mentions (a benchmark, a model, a
  dataset, a tool), asked near a paper's topic;
- ``answerable-named``: each names something its paper does mention, and one sentence of it
  answers the question;
- ``answerable-plain``: ordinary words, paraphrases among them, some with words no document
  holds ("waterlogged coastal meadows").

The papers and the examples are ingested into one throwaway project under
benchmarks/.work/answers (the libraries of both joined). Printed for the tuning half and the
test half (benchmarks/data/paper_split.json; questions on the examples are in the test half):
the fallback rate on unanswerable questions (target >= 3 in 4) and on answerable ones
(target <= 1 in 10), and for answered questions how often the quoted sentence is on the
expected page of the expected paper. Run:

    .venv/bin/python benchmarks/answer_abstention.py [--show]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.eval_papers import PAPERS  # noqa: E402
from benchmarks.library import WORK, joined_library, write_config  # noqa: E402
from benchmarks.paper_queries import HALVES  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.services.answer import AnswerService  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
FOLDER = WORK / "answers"
KINDS = ("unanswerable", "answerable-named", "answerable-plain")


def library() -> Path:
    """The shared papers' library and the examples' library as one file."""
    return joined_library(
        FOLDER, ROOT / "tests" / "data" / "papers.csl.json", ROOT / "references" / "example.json"
    )


def build() -> Path:
    config = write_config(FOLDER, "answers", "bench-answers", library())
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        report = bootstrap.ingest_service(settings, "answers", index).run(
            [PAPERS, ROOT / "examples" / "papers"]
        )
        t = report.totals
        print(f"ingest: {t['ingested']} ingested, {t['skipped']} skipped, {t['failed']} failed")
    finally:
        index.close()
    return config


@dataclass(frozen=True)
class Answered:
    """One question's outcome: whether answer fell back, and for an answerable question it
    answered, whether the quote is from the expected paper on an expected page."""

    question: dict
    fallback: bool
    on_page: bool | None  # None: fell back, or an unanswerable question answered
    said: str  # the reason of a fallback, or the citation and the start of its quote

    @property
    def wrong(self) -> bool:
        return self.fallback != (self.question["kind"] == "unanswerable")


def measure(service: AnswerService, questions: list[dict]) -> list[Answered]:
    """Every question answered and scored (the quality tests call this too)."""
    out = []
    for q in questions:
        report = service.answer(q["question"])
        if report.fallback:
            out.append(Answered(q, True, None, report.reason or ""))
            continue
        best = report.citations[0]
        pages = {q["pdf_page"], *q.get("also_on", [])} if q["kind"] != "unanswerable" else set()
        on_page = best.citekey == q["citekey"] and best.page in pages if pages else None
        said = f"{best.citekey} p. {best.page}: {best.quote[:100]}"
        out.append(Answered(q, False, on_page, said))
    return out


def questions() -> list[dict]:
    return json.loads((DATA / "answer_questions.json").read_text(encoding="utf-8"))["questions"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", action="store_true", help="list the wrong outcomes")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    asked = questions()
    config = build()
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.answer_service(settings, "answers", index)
        started = time.perf_counter()
        measured = measure(service, asked)
        seconds = time.perf_counter() - started
        if args.show:
            for a in measured:
                if a.wrong:
                    q = a.question
                    print(f"  {q['id']} [{q['kind']}] {q['question']}\n      -> {a.said}")
        print(f"{len(asked)} questions in {seconds:.1f} s (load average {os.getloadavg()[0]:.2f})")
        for half in HALVES:
            mine = [a for a in measured if a.question["half"] == half]
            cells = []
            for kind in KINDS:
                falls = [a.fallback for a in mine if a.question["kind"] == kind]
                cells.append(f"{kind} fallback {sum(falls)}/{len(falls)}")
            answered = [a.on_page for a in mine if a.on_page is not None]
            cells.append(f"answered on the expected page {sum(answered)}/{len(answered)}")
            print(f"{half:<5} " + "; ".join(cells))
    finally:
        index.close()


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
