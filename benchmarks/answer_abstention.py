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
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.eval_papers import PAPERS  # noqa: E402
from benchmarks.library import WORK, joined_library, write_config  # noqa: E402
from benchmarks.paper_queries import HALVES  # noqa: E402
from citeloom import bootstrap  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", action="store_true", help="list the wrong outcomes")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    questions = json.loads((DATA / "answer_questions.json").read_text(encoding="utf-8"))
    config = build()
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.answer_service(settings, "answers", index)
        outcomes: dict[tuple[str, str], list[bool]] = defaultdict(list)
        on_page: dict[str, list[bool]] = defaultdict(list)
        started = time.perf_counter()
        for q in questions["questions"]:
            report = service.answer(q["question"])
            outcomes[q["half"], q["kind"]].append(report.fallback)
            wrong = report.fallback != (q["kind"] == "unanswerable")
            if not report.fallback and q["kind"] != "unanswerable":
                pages = {q["pdf_page"], *q.get("also_on", [])}
                best = report.citations[0]
                on_page[q["half"]].append(best.citekey == q["citekey"] and best.page in pages)
            if args.show and wrong:
                said = report.reason if report.fallback else report.citations[0].quote[:100]
                print(f"  {q['id']} [{q['kind']}] {q['question']}\n      -> {said}")
        seconds = time.perf_counter() - started
        print(
            f"{len(questions['questions'])} questions in {seconds:.1f} s "
            f"(load average {os.getloadavg()[0]:.2f})"
        )
        for half in HALVES:
            cells = []
            for kind in KINDS:
                falls = outcomes[half, kind]
                cells.append(f"{kind} fallback {sum(falls)}/{len(falls)}")
            answered = on_page[half]
            cells.append(f"answered on the expected page {sum(answered)}/{len(answered)}")
            print(f"{half:<5} " + "; ".join(cells))
    finally:
        index.close()


if __name__ == "__main__":
    main()
