"""p50/p95 of ``POST /answer`` against a real ``citeloom serve`` on 127.0.0.1.

Starts the server on the shared papers project that benchmarks/eval_papers.py builds, asks
the answerable questions of benchmarks/data/paper_queries.json (kinds question and
paraphrase) one after another through httpx, and prints wall-time percentiles per request,
plus the server's CPU time (user+sys from /proc) over the run. Round 1 asks each question for
the first time (the server keeps sentence vectors, so papers met by earlier questions are
cheaper); later rounds repeat them. Repeat runs: the machine is shared. Run:

    .venv/bin/python benchmarks/serve_latency.py [--requests N] [--rounds R]
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

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import eval_papers, paper_queries  # noqa: E402

CITELOOM = str(Path(sys.executable).with_name("citeloom"))


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    config = eval_papers.prepare()
    eval_papers.ingest(config)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [CITELOOM, "serve", "-c", str(config), "--port", str(port)], stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(f"{url}/health", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        questions = [
            q["query"] for q in paper_queries.load() if q["kind"] in ("question", "paraphrase")
        ][: args.requests]
        with httpx.Client(base_url=url, timeout=120) as client:
            client.post("/answer", json={"project": "papers", "question": questions[0]})  # warm
            for round_ in range(1, args.rounds + 1):
                cpu = cpu_seconds(server.pid)
                times, fallback = [], 0
                for question in questions:
                    start = time.perf_counter()
                    response = client.post(
                        "/answer", json={"project": "papers", "question": question}
                    )
                    times.append(time.perf_counter() - start)
                    response.raise_for_status()
                    fallback += response.json()["fallback"]
                used = cpu_seconds(server.pid) - cpu
                cuts = statistics.quantiles(times, n=20)
                print(
                    f"round {round_}: {len(times)} requests, /answer p50 "
                    f"{1000 * statistics.median(times):.0f} ms, p95 {1000 * cuts[18]:.0f} ms, "
                    f"max {1000 * max(times):.0f} ms; server CPU {1000 * used / len(times):.0f} ms "
                    f"a request; {fallback} fell back to leads; load average "
                    f"{os.getloadavg()[0]:.1f}"
                )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
