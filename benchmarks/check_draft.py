"""How often is ``citeloom check`` right? A draft built from the judged query set.

Each answerable query of benchmarks/data/paper_queries.json carries a note that restates, in
other words, what its expected pages say: that note is a claim. Every claim is cited four
times, over the shared papers project that benchmarks/eval_papers.py builds:

- with its paper and an expected page        -> should be ``supported``
- with its paper and a page far from them     -> should be ``other-page``
- with another ingested paper and a page      -> should be ``not-found``
- with its paper and no page                   -> should be ``no-page``

It prints the precision and recall of each verdict for the tuning half and the test half of
the papers (benchmarks/data/paper_split.json), for the configured thresholds and, with
``--sweep``, for a grid of ``[check] support`` and ``page_margin``, chosen on the tuning
half only. Searches run once; the grid re-judges their results. It also prints the answer
verification rate: the share of whole sentences of retrieved passages found verbatim on
their page of the stored text. Run:

    .venv/bin/python benchmarks/check_draft.py [--sweep] [--limit N]
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import resource
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import eval_papers, paper_queries  # noqa: E402
from benchmarks.paper_queries import HALVES, half  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.draft_citations import DraftCitation  # noqa: E402
from citeloom.services.check import VERDICTS, CheckService  # noqa: E402
from citeloom.services.evidence import Support  # noqa: E402

JUDGED = ("supported", "other-page", "not-found", "no-page")


def claim(note: str) -> str:
    """The note as a sentence: its 'Sec. 3:' style pointer dropped."""
    text = re.sub(r"^[^:]{0,40}:\s*", "", note).strip()
    return text[:1].upper() + text[1:].rstrip(".") + "."


def citations(pages: dict[str, int], kinds: set[str]) -> list[tuple[DraftCitation, str, str]]:
    """(citation, expected verdict, half) for every claim of the query set."""
    rng = random.Random(14)
    keys = sorted(pages)
    out = []
    for number, query in enumerate(paper_queries.load()):
        key = query["citekey"]
        if key is None or key not in pages or not query.get("note") or query["kind"] not in kinds:
            continue
        sentence = claim(query["note"])
        right = query["pages"][0]
        far = [p for p in range(1, pages[key] + 1) if all(abs(p - q) >= 2 for q in query["pages"])]
        other = rng.choice([k for k in keys if k != key])
        variants = [(key, (right,), "supported"), (key, (), "no-page")]
        if far:
            variants.append((key, (rng.choice(far),), "other-page"))
        variants.append((other, (1,), "not-found"))
        for cited, cited_pages, expected in variants:
            locator = f"p. {cited_pages[0]}" if cited_pages else ""
            raw = f"[@{cited}{', ' + locator if locator else ''}]"
            citation = DraftCitation(cited, cited_pages, number + 1, 1, sentence, raw, locator)
            out.append((citation, expected, half(query)))
    return out


def memoised(service: CheckService) -> CheckService:
    """The same service, each (claim, papers) searched and scored once for the whole grid."""
    seen: dict[tuple[str, tuple[str, ...]], list[Support]] = {}
    search = service._supports

    def supports(text: str, citekeys: tuple[str, ...]) -> list[Support]:
        if (text, citekeys) not in seen:
            seen[text, citekeys] = search(text, citekeys)
        return seen[text, citekeys]

    service._supports = supports  # type: ignore[method-assign]
    return service


def precision(rows: list[tuple[str, str]], verdict: str) -> float:
    got = [e for e, g in rows if g == verdict]
    return sum(e == verdict for e in got) / len(got) if got else 0.0


def table(rows: list[tuple[str, str]]) -> str:
    """Precision and recall of each verdict from (expected, got) pairs."""
    lines = [f"  {'verdict':<12} {'precision':>9} {'recall':>7} {'n':>4}"]
    for verdict in JUDGED:
        got = [e for e, g in rows if g == verdict]
        want = [g for e, g in rows if e == verdict]
        precision = sum(e == verdict for e in got) / len(got) if got else float("nan")
        recall = sum(g == verdict for g in want) / len(want) if want else float("nan")
        lines.append(f"  {verdict:<12} {precision:>9.3f} {recall:>7.3f} {len(want):>4}")
    confusion = Counter(rows)
    lines.append(
        "  expected -> got: "
        + ", ".join(f"{e}->{g} {n}" for (e, g), n in sorted(confusion.items()) if e != g)
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sweep", action="store_true", help="tune on the tuning half")
    parser.add_argument("--limit", type=int, default=0, help="first N claims only (a quick run)")
    parser.add_argument(
        "--kinds", default="paraphrase,question", help="query kinds whose notes become claims"
    )
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    config = eval_papers.prepare()
    eval_papers.ingest(config)
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = memoised(bootstrap.check_service(settings, "papers", index))
        pages = {
            d.citekey: d.page_count or 1
            for d in index.documents(service.query.collection, "papers")
            if d.citekey
        }
        cases = citations(pages, set(args.kinds.split(",")))
        if args.limit:
            cases = cases[: args.limit * 4]
        start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        judged = [(service.judge(c), expected, part) for c, expected, part in cases]
        end = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.perf_counter() - start
        used = end.ru_utime - cpu.ru_utime + end.ru_stime - cpu.ru_stime
        print(
            f"{len(cases)} citations of {len(cases) // 4}+ claims judged in {wall:.1f} s wall, "
            f"{used:.1f} s CPU ({1000 * used / max(len(cases), 1):.0f} ms CPU a citation)"
        )
        evidence = service.evidence
        print(
            f"verification: {evidence.verified} of {evidence.checked} whole sentences of "
            f"retrieved passages found on their page of the stored text "
            f"({evidence.verified / max(evidence.checked, 1):.3f})"
        )
        grid = [(service.support, service.page_margin)]
        if args.sweep:
            grid = [(s / 100, m / 100) for s in range(50, 86, 5) for m in (0, 2, 5, 10)]
        best = None
        for support, margin in grid:
            service.support, service.page_margin = support, margin
            rows = {
                part: [(e, service.judge(c.citation).verdict) for c, e, p in judged if p == part]
                for part in HALVES
            }
            tune = rows["tune"]
            precisions = {v: precision(tune, v) for v in ("supported", "other-page")}
            accuracy = sum(e == g for e, g in tune) / max(len(tune), 1)
            score = (min(precisions.values()) >= 0.9, accuracy)
            if args.sweep:
                print(
                    f"support {support:.2f} margin {margin:.2f}: tune accuracy {accuracy:.3f}, "
                    f"precision supported {precisions['supported']:.3f}, "
                    f"other-page {precisions['other-page']:.3f}"
                )
            if best is None or score > best[0]:
                best = (score, support, margin, rows)
        assert best is not None
        _, support, margin, rows = best
        print(
            f"\n[check] support = {support:.2f}, page_margin = {margin:.2f}"
            f"{' (chosen on the tuning half)' if args.sweep else ''}"
        )
        for part in HALVES:
            print(f"{part} half ({len(rows[part])} citations):")
            print(table(rows[part]))
        assert set(JUDGED) <= set(VERDICTS)
    finally:
        index.close()


if __name__ == "__main__":
    main()
