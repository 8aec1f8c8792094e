"""Why did ``check`` give this verdict? The aligned spans of one claim, with their facts.

For reading a wrong verdict of ``check_realistic.py`` or ``check_claims.py``: prints the cited
pages' best-aligned spans (score, lexical share, similarity, the terms they lack), the facts
compared with each (contradictions and what is missing), and the verdict. Give a claim of a
data file by id, or a claim, a citekey and a PDF page. Run:

    .venv/bin/python benchmarks/check_explain.py r1-05 rc-012
    .venv/bin/python benchmarks/check_explain.py --claim "..." --citekey he2025pasa --page 9
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.check_claims import claim_on_page, prepare  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.alignment import content_ok, facts_of  # noqa: E402

DATA = ROOT / "benchmarks" / "data"


def find(item_id: str) -> tuple[str, str, int]:
    """(claim, citekey, PDF page) of an item of any data file."""
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            continue
        for key in ("claims", "restatements", "inconsistent"):
            for c in data.get(key, []):
                if c.get("id") == item_id:
                    return c["claim"], c["citekey"], c["pdf_page"]
    raise SystemExit(f"{item_id}: no such item in {DATA}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--claim")
    parser.add_argument("--citekey")
    parser.add_argument("--page", type=int)
    parser.add_argument("--top", type=int, default=4)
    args = parser.parse_args()
    wanted = [find(i) for i in args.ids]
    if args.claim:
        wanted.append((args.claim, args.citekey, args.page))
    logging.disable(logging.WARNING)
    config = prepare()
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.check_service(settings, "checks", index)
        core = service.judge_core
        for claim, key, page in wanted:
            content, pages, short_forms = claim_on_page(service, claim, key, page)
            found = core.alignments(content, pages, short_forms)
            verdict = core.judge(content, pages, short_forms)
            print(f"\n=== {claim}\n    [@{key}, PDF p. {page}] -> {verdict.outcome}")
            numbers = [q.text for q in content.numbers]
            print(f"    numbers {numbers}; context {sorted(content.context)}")
            for a in found[: args.top]:
                facts = facts_of(content, a, short_forms, core.antonyms)
                ok = content_ok(content, a, core.thresholds, short_forms)
                print(
                    f"  score {a.score:.3f} lexical {a.lexical:.2f} terms {a.terms:.2f} "
                    f"cos {a.similarity:.3f} numbers {a.numbers:.2f} content_ok {ok}"
                )
                print(f"    core: {a.core[:300]}")
                if len(a.span.sentences) > 1:
                    print(f"    span: {a.span.text[:400]}")
                print(f"    lacks: {list(a.uncovered[:8])}")
                print(f"    against: {facts.contradictions}")
                print(f"    missing: {facts.missing}")
    finally:
        index.close()


if __name__ == "__main__":
    main()
