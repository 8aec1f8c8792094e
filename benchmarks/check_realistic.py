"""Would a writer's pre-commit hook trust ``citeloom check``? Claims by other hands, one fact wrong.

Every claim here is cited to the printed page that states it (a correct claim) or that
states the fact it gets wrong (a false claim), and none is the page's own sentence with a
token changed: the false ones restate the paper in other words and get one thing wrong (a
number, a unit, a negation or scope, a direction, a name), the way a careless author
miscites. That is what ``check`` meets in a real draft, and what the benchmark of perturbed
sentences (``check_claims.py``) cannot show: there the aligner finds the very sentence that
was perturbed.

Sets (benchmarks/data/):

- ``fresh``: ``fresh_claims_r*.json``, written before each tuning round by someone who had
  not read the checker; measured once and reported before any rule is changed for it;
- ``realistic``: ``realistic_claims.json``, correct and false claims in a researcher's words;
- ``restated``: the authors' own restatements (``author_restatements.json``, correct) and the
  same sentences with one fact changed (``false_restatements.json``, false);
- ``claims``: ``claims.json``'s correct kinds and its false claims.

Each set but ``fresh`` is split by paper into the tuning and test halves of
``check_claims.halves``. Printed per set and half, the four figures a hook lives by (the
default ``--fail-on``): false claims judged supported, correct claims that fail the hook,
false claims that fail it, correct claims supported; then the false claims by kind of change,
and, where a set records each claim's stating sentence, how often a correct claim left
unconfirmed is shown that sentence.
``--show`` lists the tuning half's wrong verdicts, ``--show-test`` the test half's too (a rule
read off them is tuned on them); ``--save FILE`` writes every item's verdict. Run:

    .venv/bin/python benchmarks/check_realistic.py [--sets fresh,realistic] [--show]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.check_claims import (  # noqa: E402
    as_cited,
    authors_file,
    halves,
    prepare,
    printed_labels,
)
from benchmarks.library import CachedEmbedder  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.text import comparable_words  # noqa: E402
from citeloom.services.check import CheckReport, CheckService  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
SETS = ("fresh", "realistic", "restated", "claims")
CHANGES = ("number", "unit", "negation_scope", "direction", "name")
# claims.json names its changes in finer kinds
_CHANGE = {"method": "name", "dataset": "name", "negation": "negation_scope"}


@dataclass(frozen=True)
class Item:
    set: str
    id: str
    correct: bool
    change: str | None  # a false claim's kind of change
    claim: str
    citekey: str
    pdf_page: int
    half: str  # tune, test, or "all" for a fresh set
    evidence: str = ""  # the page's stating sentence(s), where the set records them

    def line(self, label: str) -> str:
        return f"{self.claim.strip().rstrip('.')} [@{self.citekey}, p. {label}]."


def _change(kind: str | None) -> str | None:
    return _CHANGE.get(kind or "", kind) if kind else None


def fresh_items() -> list[Item]:
    out = []
    for path in sorted(DATA.glob("fresh_claims_r*.json")):
        for c in json.loads(path.read_text(encoding="utf-8"))["claims"]:
            correct = c["kind"] == "correct"
            out.append(
                Item(f"fresh-{path.stem.rsplit('_', 1)[-1]}", c["id"], correct,
                     None if correct else _change(c["change"]), c["claim"], c["citekey"],
                     c["pdf_page"], "all", c.get("evidence") or "")
            )  # fmt: skip
    return out


def realistic_items(keys: dict[str, str]) -> list[Item]:
    path = DATA / "realistic_claims.json"
    if not path.exists():
        return []
    out = []
    for c in json.loads(path.read_text(encoding="utf-8"))["claims"]:
        correct = c["kind"] == "correct"
        out.append(
            Item("realistic", c["id"], correct, None if correct else _change(c["change"]),
                 c["claim"], c["citekey"], c["pdf_page"], keys.get(c["citekey"], "test"),
                 c.get("evidence") or "")
        )  # fmt: skip
    return out


def restated_items(keys: dict[str, str]) -> list[Item]:
    authors = authors_file() or {"restatements": []}
    out = [
        Item("restated", r["id"], True, None, r["claim"], r["citekey"], r["pdf_page"],
             keys.get(r["citekey"], "test"))
        for r in authors["restatements"]
    ]  # fmt: skip
    path = DATA / "false_restatements.json"
    if path.exists():
        for c in json.loads(path.read_text(encoding="utf-8"))["claims"]:
            out.append(
                Item("restated", c["id"], False, _change(c["change"]), c["claim"], c["citekey"],
                     c["pdf_page"], keys.get(c["citekey"], "test"))
            )  # fmt: skip
    return out


def claims_items(keys: dict[str, str]) -> list[Item]:
    out = []
    for c in json.loads((DATA / "claims.json").read_text(encoding="utf-8"))["claims"]:
        if c["kind"] == "vague":
            continue
        correct = c["kind"] != "false"
        change = None if correct else _change((c.get("differs") or {}).get("type"))
        out.append(
            Item("claims", c["id"], correct, change, c["claim"], c["citekey"], c["pdf_page"],
                 keys.get(c["citekey"], "test"))
        )  # fmt: skip
    return out


# ---------------------------------------------------------------- figures
@dataclass
class Figures:
    rows: list[tuple[Item, str]]
    fail_on: frozenset[str]

    def _of(self, correct: bool) -> list[str]:
        return [got for item, got in self.rows if item.correct == correct]

    def line(self) -> str:
        true, false = self._of(True), self._of(False)
        fails = self.fail_on
        return (
            f"false supported {sum(g == 'supported' for g in false)}/{len(false)}; "
            f"correct failing {sum(g in fails for g in true)}/{len(true)}; "
            f"false failing {sum(g in fails for g in false)}/{len(false)}; "
            f"correct supported {sum(g == 'supported' for g in true)}/{len(true)}"
        )

    def by_change(self) -> str:
        parts = []
        for change in CHANGES:
            got = [g for item, g in self.rows if not item.correct and item.change == change]
            if got:
                parts.append(
                    f"{change}: supported {sum(g == 'supported' for g in got)}, failing "
                    f"{sum(g in self.fail_on for g in got)} of {len(got)}"
                )
        return "; ".join(parts)

    def verdicts(self) -> str:
        true = Counter(g for item, g in self.rows if item.correct)
        false = Counter(g for item, g in self.rows if not item.correct)
        return f"correct {dict(sorted(true.items()))}; false {dict(sorted(false.items()))}"


def judge(
    service: CheckService, items: list[Item], labels, shown: dict[tuple[str, str], str]
) -> list[tuple[Item, str]]:
    """Every item cited to its page's printed label, in one draft through the service;
    ``shown`` gets the passage each check showed as its evidence, by (set, id)."""
    kept, lines = [], []
    for item in items:
        pages = labels.get(item.citekey)
        label = pages[item.pdf_page - 1] if pages and item.pdf_page <= len(pages) else None
        if not label:
            print(f"  {item.id}: no printed label for PDF p. {item.pdf_page} (left out)")
            continue
        kept.append(item)
        lines.append(item.line(label))
    report: CheckReport = service.check("\n\n".join(lines), "realistic.md", latex=False)
    assert len(report.checks) == len(kept), "the draft parser lost citations"
    shown.update(
        {(i.set, i.id): c.evidence.quote for i, c in zip(kept, report.checks, strict=True)
         if c.evidence is not None}
    )  # fmt: skip
    return [(item, check.verdict) for item, check in zip(kept, report.checks, strict=True)]


def stating_shown(rows: list[tuple[Item, str]], shown: dict[tuple[str, str], str]) -> str:
    """For correct claims judged unconfirmed: how often the passage shown (one to three
    sentences) holds the sentence the set records as stating the claim, or is held by it
    (most words of the shorter of the two are in the other), so that the reader is pointed
    at the right sentence."""
    wanted = [(i, g) for i, g in rows if i.correct and g == "unconfirmed" and i.evidence]
    hit = 0
    for item, _ in wanted:
        words = {w for w in comparable_words(shown.get((item.set, item.id), "")) if len(w) > 2}
        recorded = {w for w in comparable_words(item.evidence) if len(w) > 2}
        hit += bool(words) and len(words & recorded) >= 0.6 * min(len(words), len(recorded))
    return f"stating sentence shown for {hit} of {len(wanted)} correct claims left unconfirmed"


def show(rows: list[tuple[Item, str]], fail_on: frozenset[str]) -> None:
    for item, got in rows:
        wrong = got != "supported" if item.correct else got not in fail_on
        if wrong:
            what = "correct" if item.correct else f"false/{item.change}"
            print(f"    {item.id} ({what}, PDF p. {item.pdf_page}): {got} <- {item.claim[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="which sets to run")
    parser.add_argument("--show", action="store_true", help="list the tuning half's misses")
    parser.add_argument("--show-test", action="store_true", help="list the test half's too")
    parser.add_argument("--save", type=Path, help="write every item's verdict to this JSON file")
    args = parser.parse_args()
    chosen = [s for s in args.sets.split(",") if s]
    logging.disable(logging.WARNING)
    config = prepare()
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    cached: CachedEmbedder | None = None
    try:
        service = bootstrap.check_service(settings, "checks", index)
        service.elsewhere = 0  # other papers listed beside not-found are not scored
        cached = CachedEmbedder(
            service.judge_core.embedder, settings.paths.cache_dir / "vectors", autosave=False
        )
        service.judge_core.embedder = cached
        keys = halves(authors_file())
        labels = {
            k: as_cited(v, service.papers()[k])
            for k, v in printed_labels().items()
            if k in service.papers()
        }
        makers = {
            "fresh": fresh_items,
            "realistic": lambda: realistic_items(keys),
            "restated": lambda: restated_items(keys),
            "claims": lambda: claims_items(keys),
        }
        saved: dict[str, dict[str, str]] = {}
        shown: dict[tuple[str, str], str] = {}
        fail_on = frozenset(service.fail_on)
        for name in chosen:
            items = makers[name]()
            if not items:
                print(f"\n{name}: no items (its data file is not there)")
                continue
            rows = judge(service, items, labels, shown)
            for set_name in sorted({i.set for i, _ in rows}):
                for half in ("all", "tune", "test"):
                    mine = [r for r in rows if r[0].set == set_name and r[0].half == half]
                    if not mine:
                        continue
                    figures = Figures(mine, fail_on)
                    print(f"\n{set_name}, {half} ({len(mine)} claims): {figures.line()}")
                    print(f"  false by change: {figures.by_change()}")
                    print(f"  verdicts: {figures.verdicts()}")
                    if any(i.evidence for i, _ in mine):
                        print(f"  {stating_shown(mine, shown)}")
                    listed = half == "all" or (half == "tune" and args.show) or args.show_test
                    if listed and (args.show or args.show_test):
                        show(mine, fail_on)
            saved.update({f"{i.set}/{i.id}": got for i, got in rows})
        if args.save:
            args.save.write_text(json.dumps(saved, indent=1, sort_keys=True), encoding="utf-8")
    finally:
        if cached is not None:
            cached.save()
        index.close()


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
