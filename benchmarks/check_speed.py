"""How long does ``citeloom check`` take on a real draft, from a fresh process, as a hook runs it?

A draft of 175 citations (claims of benchmarks/data/claims.json and the authors' restatements,
each cited to the printed page that states it) over the shared papers project that
``check_claims.py`` builds; ``citeloom check DRAFT --json`` runs in a new process each time,
as a pre-commit hook would. Printed per run: wall seconds, citations per second, CPU seconds
(user + system of the child) and its peak RSS, with the load average. The first run after an
ingest (or after ``--cold``, which deletes what check keeps of the pages) computes what the
judge needs of the cited pages; later runs read it back. Run:

    .venv/bin/python benchmarks/check_speed.py [--runs 3] [--cold] [--citations 175]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.check_claims import FOLDER, as_cited, prepare, printed_labels  # noqa: E402
from benchmarks.check_realistic import claims_items, restated_items  # noqa: E402
from citeloom import bootstrap  # noqa: E402

CITELOOM = str(Path(sys.executable).with_name("citeloom"))


def draft(config: Path, count: int) -> Path:
    """``count`` citations, one per line, each to the printed page that states its claim."""
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        papers = bootstrap.check_service(settings, "checks", index).papers()
        labels = {k: as_cited(v, papers[k]) for k, v in printed_labels().items() if k in papers}
    finally:
        index.close()
    keys: dict[str, str] = {}
    lines = []
    for item in [*claims_items(keys), *restated_items(keys)]:
        pages = labels.get(item.citekey)
        label = pages[item.pdf_page - 1] if pages and item.pdf_page <= len(pages) else None
        if label:
            lines.append(item.line(label))
        if len(lines) == count:
            break
    path = FOLDER / f"draft-{count}.md"
    path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(config: Path, path: Path) -> tuple[float, float, float, int]:
    """Wall and CPU seconds, peak RSS in MB, citations judged, of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [CITELOOM, "check", str(path), "-p", "checks", "-c", str(config), "--json"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CITELOOM_LOG_LEVEL": "WARNING"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    judged = len(json.loads(done.stdout)["citations"])
    return wall, cpu, after.ru_maxrss / 1024, judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--citations", type=int, default=175)
    parser.add_argument("--cold", action="store_true", help="forget what check keeps first")
    args = parser.parse_args()
    config = prepare()
    path = draft(config, args.citations)
    if args.cold:
        kept = bootstrap.settings(config).paths.cache_dir / "sentences"
        shutil.rmtree(kept, ignore_errors=True)
        print(f"forgot {kept}")
    for n in range(args.runs):
        wall, cpu, rss, judged = run(config, path)
        print(
            f"run {n + 1}: {judged} citations in {wall:.1f} s ({judged / wall:.1f}/s), "
            f"CPU {cpu:.1f} s, peak RSS {rss:.0f} MB"
        )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
