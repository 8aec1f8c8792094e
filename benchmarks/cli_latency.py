"""Wall time of a cold ``citeloom query`` (and ``answer``), with and without a running server.

Builds the shared papers project as benchmarks/eval_papers.py does, then runs the CLI as a
person would, one process per question over the judged paper queries:

1. with no server: the CLI imports the engine, opens the shard and loads the model itself;
2. with ``citeloom serve`` running on the same config: the CLI hands the request to it
   (entrypoints/handoff.py) and prints the server's answer as its own text.

Prints p50/p95/max wall per path and command, with the load average beside each. Run:

    .venv/bin/python benchmarks/cli_latency.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import eval_papers, paper_queries  # noqa: E402

CITELOOM = str(Path(sys.executable).with_name("citeloom"))


def timed_runs(config: Path, command: str, questions: list[str], local: bool) -> list[float]:
    times = []
    for question in questions:
        argv = [CITELOOM, command, question, "-p", "papers", "-c", str(config)]
        started = time.perf_counter()
        done = subprocess.run(
            [*argv, "--local"] if local else argv, capture_output=True, text=True, check=False
        )
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return times


def report(label: str, times: list[float]) -> None:
    # the 95th percentile of fewer than two runs is the one run
    p95 = statistics.quantiles(times, n=20)[18] if len(times) > 1 else max(times)
    print(
        f"{label:<34} p50 {1000 * statistics.median(times):5.0f} ms  p95 "
        f"{1000 * p95:5.0f} ms  max {1000 * max(times):5.0f} ms  (n={len(times)}; load "
        f"average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    config = eval_papers.prepare()
    eval_papers.ingest(config)
    questions = [q["query"] for q in paper_queries.load() if q["kind"] == "question"][: args.runs]
    for command in ("query", "answer"):
        report(f"{command}, no server (--local)", timed_runs(config, command, questions, True))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [CITELOOM, "serve", "-c", str(config), "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        server.stderr.readline()  # "citeloom serving on ..." once the port is bound
        for _ in range(600):  # the models load before the server announces itself
            probe = subprocess.run(
                [CITELOOM, "-v", "query", "x", "-p", "papers", "-c", str(config)],
                capture_output=True,
                text=True,
                check=False,
            )
            if "answered by citeloom serve" in probe.stderr:
                break
            time.sleep(0.2)
        for command in ("query", "answer"):
            report(f"{command}, through the server", timed_runs(config, command, questions, False))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
