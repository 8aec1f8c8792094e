"""Query latency: warm in-process p50/p95, and the cold start of the `citeloom query` CLI.

Uses the project that benchmarks/eval_papers.py builds (run that first) and its query set.
Warm: one QueryService answering every query several times in this process. Cold: the CLI
started as a new process per query (interpreter, imports, model load, index open), as a
person or an editor plugin would run it. Run:

    .venv/bin/python benchmarks/query_latency.py [--repeat 3] [--cold 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work" / "papers"
sys.path.insert(0, str(ROOT / "src"))

from citeloom import bootstrap  # noqa: E402
from citeloom.services.query import QueryOptions  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm passes over the query set")
    parser.add_argument("--cold", type=int, default=10, help="CLI runs for the cold start")
    args = parser.parse_args()
    config = WORK / "citeloom.toml"
    if not config.exists():
        sys.exit("run benchmarks/eval_papers.py first: it builds the project this measures")
    queries = [
        q["query"] for q in json.loads((ROOT / "benchmarks/data/paper_queries.json").read_text())
    ]

    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    start = time.perf_counter()
    service = bootstrap.query_service(settings, "papers", index)
    service.search(queries[0])
    setup = time.perf_counter() - start
    timings = []
    try:
        for _ in range(args.repeat):
            for query in queries:
                t = time.perf_counter()
                service.search(query, QueryOptions())
                timings.append((time.perf_counter() - t) * 1000)
    finally:
        index.close()
    print(
        f"warm, in process: {len(timings)} queries, p50 {percentile(timings, 0.5):.1f} ms, "
        f"p95 {percentile(timings, 0.95):.1f} ms, max {max(timings):.1f} ms "
        f"(first query incl. model load and index open: {setup:.2f} s)"
    )

    cli = str(Path(sys.executable).with_name("citeloom"))
    cold = []
    for query in queries[: args.cold]:
        t = time.perf_counter()
        subprocess.run(
            [cli, "query", query, "-p", "papers", "-c", str(config), "--json"],
            check=True,
            capture_output=True,
        )
        cold.append(time.perf_counter() - t)
    t = time.perf_counter()
    subprocess.run([cli, "query", "--help"], check=True, capture_output=True)
    help_time = time.perf_counter() - t
    print(
        f"cold CLI `citeloom query`: {len(cold)} runs, median {statistics.median(cold):.2f} s, "
        f"max {max(cold):.2f} s; `citeloom query --help`: {help_time:.2f} s"
    )


if __name__ == "__main__":
    main()
