"""How often is ``citeloom check`` right? Claims in a researcher's own words, cited four ways.

benchmarks/data/claims.json holds claims about the shared papers written by reading their
pages: restatements, paraphrases, terse claims ("As reported, <the page's rare terms>."),
false claims (a wrong number, unit, negation, direction, method or dataset, each cited to the
page it misstates) and vague ones. Every claim becomes four citations in a pandoc draft, each
naming the printed page (from the hand-written benchmarks/data/page_labels_truth.json, so
citeloom has to map the printed page back to its PDF page itself):

- its paper and its page       -> true: ``supported``; false: ``mismatch``
- its paper and a far page      -> true: ``other-page``; false: ``mismatch``
- another paper                 -> ``not-found``
- its paper and no page         -> true: ``no-page``; false: ``mismatch``

Vague claims should never be supported: ``not-found``, or ``mismatch`` when the page states
none of the numbers they give, are both right. The draft goes through ``CheckService.check``
(the parser included) over the shared papers project of benchmarks/eval_papers.py. Printed,
for the tuning half and the test half of the papers (benchmarks/data/paper_split.json):

- false ``supported``: citations of false or vague claims judged supported (target 0);
- ``supported`` precision (target >= 0.95) and recall per kind on its own page (restatements
  and terse claims >= 0.85);
- the confusion table, expected against got.

``--sweep`` tries a grid of ``[check] support``, ``terse_coverage``, ``contra_overlap`` and
``tie_margin`` on the tuning half only (no false support first, then recall on restatements
and terse claims, then precision) and reports both halves for the choice. Run:

    .venv/bin/python benchmarks/check_claims.py [--sweep]
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import random
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import eval_papers  # noqa: E402
from benchmarks.paper_queries import HALVES  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.services.check import CheckService  # noqa: E402
from citeloom.services.evidence import Support  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
TRUE_KINDS = ("restatement", "paraphrase", "terse")


@dataclass(frozen=True)
class Case:
    claim: dict
    variant: str  # right, far, other, none
    citekey: str
    label: str | None  # the printed page cited
    expected: str

    @property
    def half(self) -> str:
        return str(self.claim["half"])

    def right(self, got: str) -> bool:
        if self.claim["kind"] == "vague":
            return got in ("not-found", "mismatch")
        return got == self.expected

    def line(self) -> str:
        text = self.claim["claim"].rstrip(".")
        locator = f", p. {self.label}" if self.label else ""
        return f"{text} [@{self.citekey}{locator}]."


def printed_labels() -> dict[str, list[str | None]]:
    """citekey -> the printed label of each PDF page (hand-written truth)."""
    truth = json.loads((DATA / "page_labels_truth.json").read_text(encoding="utf-8"))
    files = json.loads((DATA / "papers_truth.json").read_text(encoding="utf-8"))
    return {
        key: truth[f"papers/{name}"]["labels"]
        for name, key in files.items()
        if not name.startswith("_") and key
    }


def cases() -> list[Case]:
    claims = json.loads((DATA / "claims.json").read_text(encoding="utf-8"))["claims"]
    split = json.loads((DATA / "paper_split.json").read_text(encoding="utf-8"))
    halves = {key: half for half in HALVES for key in split[half]}
    labels = printed_labels()
    rng = random.Random(19)
    keys = sorted(labels)
    out = []
    for written in claims:
        claim = {**written, "half": halves[written["citekey"]]}
        key, page = claim["citekey"], claim["pdf_page"]
        pages = labels[key]
        kind = claim["kind"]
        truthful = kind in TRUE_KINDS
        expect = {
            "right": "supported" if truthful else "mismatch",
            "far": "other-page" if truthful else "mismatch",
            "other": "not-found",
            "none": "no-page" if truthful else "mismatch",
        }
        if kind == "vague":
            expect = dict.fromkeys(expect, "not-found")  # mismatch is right too (see right())
        out.append(Case(claim, "right", key, pages[page - 1], expect["right"]))
        far = [i for i in range(1, len(pages) + 1) if abs(i - page) >= 2 and pages[i - 1]]
        if far:
            out.append(Case(claim, "far", key, pages[rng.choice(far) - 1], expect["far"]))
        other = rng.choice([k for k in keys if k != key])
        numbered = [label for label in labels[other] if label]
        out.append(Case(claim, "other", other, rng.choice(numbered), expect["other"]))
        out.append(Case(claim, "none", key, None, expect["none"]))
    return out


def memoised(service: CheckService) -> CheckService:
    """The same service, each search and each cited page scored once for the whole grid."""
    search, pages = service._supports, service._page_supports
    weights = service.evidence.term_weights
    seen: dict[tuple, list[Support]] = {}
    weighed: dict[tuple[str, str], dict[str, float]] = {}

    def supports(text: str, citekeys: tuple[str, ...]) -> list[Support]:
        if ("q", text, citekeys) not in seen:
            seen["q", text, citekeys] = search(text, citekeys)
        return seen["q", text, citekeys]

    def page_supports(text: str, cited: dict[str, set[int]]) -> list[Support]:
        key = ("p", text, tuple(sorted((d, tuple(sorted(p))) for d, p in cited.items())))
        if key not in seen:
            seen[key] = pages(text, cited)
        return seen[key]

    def term_weights(text: str) -> dict[str, float]:
        if ("idf", text) not in weighed:
            weighed["idf", text] = weights(text)
        return weighed["idf", text]

    service._supports = supports  # type: ignore[method-assign]
    service._page_supports = page_supports  # type: ignore[method-assign]
    service.evidence.term_weights = term_weights  # type: ignore[method-assign]
    return service


@dataclass
class Scores:
    rows: list[tuple[Case, str]]

    @property
    def false_supported(self) -> int:
        return sum(g == "supported" for c, g in self.rows if c.claim["kind"] not in TRUE_KINDS)

    @property
    def precision(self) -> float:
        got = [c for c, g in self.rows if g == "supported"]
        return sum(c.expected == "supported" for c in got) / len(got) if got else float("nan")

    def recall(self, kinds: tuple[str, ...]) -> float:
        want = [g for c, g in self.rows if c.variant == "right" and c.claim["kind"] in kinds]
        return sum(g == "supported" for g in want) / len(want) if want else float("nan")

    @property
    def accuracy(self) -> float:
        return sum(c.right(g) for c, g in self.rows) / max(len(self.rows), 1)

    def summary(self) -> str:
        return (
            f"false supported {self.false_supported}; supported precision {self.precision:.3f}; "
            f"recall on its page: restatement {self.recall(('restatement',)):.3f}, terse "
            f"{self.recall(('terse',)):.3f}, both {self.recall(('restatement', 'terse')):.3f}, "
            f"paraphrase {self.recall(('paraphrase',)):.3f}; accuracy {self.accuracy:.3f}"
        )

    def confusion(self) -> str:
        table = Counter((c.expected, g) for c, g in self.rows)
        verdicts = sorted({g for _, g in self.rows} | {c.expected for c, _ in self.rows})
        width = max(len(v) for v in verdicts) + 1
        lines = ["  expected \\ got".ljust(width + 2) + "".join(f"{v[:11]:>12}" for v in verdicts)]
        for expected in sorted({c.expected for c, _ in self.rows}):
            counts = "".join(f"{table[expected, g] or '.':>12}" for g in verdicts)
            lines.append(f"  {expected:<{width}}{counts}")
        return "\n".join(lines)


def judge_all(service: CheckService, all_cases: list[Case]) -> dict[str, Scores]:
    draft = "\n\n".join(case.line() for case in all_cases)
    report = service.check(draft, "claims.md", latex=False)
    assert len(report.checks) == len(all_cases), "the draft parser lost citations"
    rows = list(zip(all_cases, (c.verdict for c in report.checks), strict=True))
    return {half: Scores([r for r in rows if r[0].half == half]) for half in HALVES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sweep", action="store_true", help="tune on the tuning half")
    parser.add_argument("--show", action="store_true", help="list the wrong verdicts")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    config = eval_papers.prepare()
    eval_papers.ingest(config)
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = memoised(bootstrap.check_service(settings, "papers", index))
        all_cases = cases()
        kinds = Counter(c.claim["kind"] for c in all_cases if c.variant == "right")
        print(f"{len(all_cases)} citations of {sum(kinds.values())} claims: {dict(kinds)}")
        start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        scores = judge_all(service, all_cases)
        end = resource.getrusage(resource.RUSAGE_SELF)
        used = end.ru_utime - cpu.ru_utime + end.ru_stime - cpu.ru_stime
        print(
            f"judged in {time.perf_counter() - start:.1f} s wall, {used:.1f} s CPU "
            f"({1000 * used / len(all_cases):.0f} ms CPU a citation), load average "
            f"{os.getloadavg()[0]:.2f}"
        )
        knobs = ("support", "terse_coverage", "contra_overlap", "tie_margin")
        chosen = {k: getattr(service, k) for k in knobs}
        if args.sweep:
            best = None
            grid = itertools.product(
                (0.65, 0.7, 0.75, 0.8), (0.8, 0.9, 1.0), (0.3, 0.35, 0.4, 0.45, 0.5), (0.0, 0.05)
            )
            for values in grid:
                for knob, value in zip(knobs, values, strict=True):
                    setattr(service, knob, value)
                tune = judge_all(service, all_cases)["tune"]
                key = (
                    -tune.false_supported,
                    round(tune.recall(("restatement", "terse")), 3),
                    round(tune.precision, 3),
                    tune.accuracy,
                )
                print(f"{dict(zip(knobs, values, strict=True))}: {tune.summary()}")
                if best is None or key > best[0]:
                    best = (key, values)
            assert best is not None
            chosen = dict(zip(knobs, best[1], strict=True))
            for knob, value in chosen.items():
                setattr(service, knob, value)
            scores = judge_all(service, all_cases)
        shown = ", ".join(f"{k} = {v}" for k, v in chosen.items())
        print(f"\n[check] {shown}{' (chosen on the tuning half)' if args.sweep else ''}")
        for half in HALVES:
            print(f"\n{half} half ({len(scores[half].rows)} citations): {scores[half].summary()}")
            print(scores[half].confusion())
            if args.show:
                for case, got in scores[half].rows:
                    if not case.right(got):
                        print(f"    {case.claim['id']} {case.variant}: {got} ({case.line()})")
    finally:
        index.close()


if __name__ == "__main__":
    main()
