"""MCP latency: a real MCP client session over stdio against `citeloom mcp` on the shared papers.

Builds the shared papers project as benchmarks/eval_papers.py does (once; conversions come from
the cache), then starts `citeloom mcp` as an editor would and measures, from the client's side:

- time to the first tool list (process start, imports, MCP handshake);
- the first query_hybrid (loads the embedding model);
- p50/p95 of N more query_hybrid calls (the judged paper queries, in turn);
- the server's CPU time (user+sys, from /proc) beside each wall time;
- how long an embedded-index opener (what `citeloom ingest` does first) waits for the project
  while the server answers queries back to back;
- how long a tool call waits while another process holds the project for H seconds.

With ``--chunks N`` the library is instead query_latency.py's synthetic project of N chunks
(real haystack text and vectors; built once, embedding what the benchmarks' cache lacks).
Run:  .venv/bin/python benchmarks/mcp_latency.py [--calls 100] [--hold 2] [--chunks N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import eval_papers, paper_queries  # noqa: E402

CITELOOM = str(Path(sys.executable).with_name("citeloom"))
TICKS = os.sysconf("SC_CLK_TCK")

HOLDER = """
import sys, time
from pathlib import Path
from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
index = QdrantIndex(EdgeEngine(Path(sys.argv[1]), busy_timeout_s=60))
started = time.perf_counter()
index.collection_info(sys.argv[2])          # takes the project's lock, as ingest does first
print(f"{time.perf_counter() - started:.4f}", flush=True)
time.sleep(float(sys.argv[3]))
index.close()
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def server_cpu() -> float:
    """User+sys seconds of the `citeloom mcp` child of this process."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and b"mcp" in cmdline:
            total += (int(fields[11]) + int(fields[12])) / TICKS
    return total


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


async def measure(
    config: Path, index_dir: Path, project: str, collection: str, calls: int, hold: float
) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    queries = [q["query"] for q in paper_queries.load()]
    params = StdioServerParameters(command=CITELOOM, args=["mcp", "--config", str(config)])
    started = time.perf_counter()
    async with Client(params) as client:
        tools = await client.list_tools()
        first_list = time.perf_counter() - started
        cpu_start = server_cpu()
        print(
            f"first tool list ({len(tools.tools)} tools): {ms(first_list)} wall, "
            f"server CPU {cpu_start:.2f} s (start-up, imports, handshake)"
        )

        async def query(text: str) -> float:
            began = time.perf_counter()
            result = await client.call_tool(
                "query_hybrid", {"project": project, "query": text, "top_k": 6}
            )
            assert not result.is_error, result.structured_content
            return time.perf_counter() - began

        first = await query(queries[0])
        cpu_first = server_cpu() - cpu_start
        print(
            f"first query_hybrid (loads the model): {ms(first)} wall, "
            f"server CPU {cpu_first * 1000:.0f} ms"
        )
        cpu_before = server_cpu()
        times = [await query(queries[(i + 1) % len(queries)]) for i in range(calls)]
        cpu_calls = server_cpu() - cpu_before
        print(
            f"{calls} query_hybrid calls: p50 {ms(statistics.median(times))}, "
            f"p95 {ms(percentile(times, 0.95))}, max {ms(max(times))}; server CPU "
            f"{cpu_calls / calls * 1000:.1f} ms per call"
        )

        # an opener (ingest) while the server answers back to back: how long it waits
        waits: list[float] = []
        stop = threading.Event()

        def openers() -> None:
            while not stop.is_set() and len(waits) < 20:
                out = subprocess.run(
                    [sys.executable, "-c", HOLDER, str(index_dir), collection, "0"],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                waits.append(float(out.stdout.strip()))

        thread = threading.Thread(target=openers)
        thread.start()
        busy_calls = 0
        while thread.is_alive():
            await query(queries[busy_calls % len(queries)])
            busy_calls += 1
        stop.set()
        print(
            f"an index opener (as ingest) while the server answered {busy_calls} queries back "
            f"to back: waited median {ms(statistics.median(waits))}, max {ms(max(waits))} "
            f"over {len(waits)} opens"
        )

        # a tool call while another process holds the project for `hold` seconds
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(index_dir), collection, str(hold)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None
        holder.stdout.readline()  # it holds the lock now
        wait = await query(queries[1])
        holder.wait()
        print(
            f"query_hybrid while another process held the project for {hold:g} s: answered "
            f"after {ms(wait)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--chunks", type=int, help="query_latency.py's project of N chunks")
    args = parser.parse_args()
    if args.chunks:
        from benchmarks import query_latency

        config = query_latency.build(args.chunks, query_latency.LATENCY_MODEL)
        project, collection = "lat", f"lat-{args.chunks}"
    else:
        config = eval_papers.prepare()
        eval_papers.ingest(config)
        project, collection = "papers", "bench-papers"
    load = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} before the run"
    )
    from citeloom import bootstrap

    settings = bootstrap.settings(config)
    print(f"library: {config} (project {project})")
    anyio.run(measure, config, settings.paths.index_dir, project, collection, args.calls, args.hold)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
