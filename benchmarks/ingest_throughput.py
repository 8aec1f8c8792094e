"""Ingest throughput: pages/s, chunks/s, seconds per stage, CPU time and peak RSS.

Ingests ../shared/corpus/papers/ (read in place) through the project's own wiring
(``bootstrap.ingest_service``) into a throwaway project under benchmarks/.work/throughput,
with a cold conversion cache and an empty index every run (the assembled embedding model under
the cache dir is kept: it is built once per machine, not per ingest). Each run is a fresh
process, so its peak RSS is its own. ``--only convert`` runs the converter alone (the same
``bootstrap.converter``), which is what the conversion budget is about. An ingest converts the
next document on a thread while the current one is embedded (ADR 0009); ``--sequential`` runs
it on one thread, convert then embed, for comparison. ``--imports`` measures what importing
Docling's PDF pipeline costs the rules path (torch hidden) against a plain import (torch found).

Pages that need OCR are reported apart: their seconds per page are estimated as the time of the
documents holding them minus their text pages at the run's born-digital rate. Timings on a
shared machine are noisy: compare CPU time (user+sys, children included: Tesseract runs as a
child process) as well as wall time, and repeat. Peak RSS is this process's; beside it, the
largest peak of its children: with ``--jobs N`` (N > 1) a conversion worker's (ADR 0024), else
Tesseract's (whose ``ru_maxrss`` counts the parent's pages it was forked from).

``--large`` ingests one long document instead: the 14 papers joined seven times (1,064 pages,
the book of issue 31), built with pypdfium2 into a temporary folder and removed after; its
conversion runs in batches of pages (``docling_converter.PAGE_BATCH``; ``--page-batch N``
sets it for the run, 100000 converts the whole PDF at once as before ADR 0024). Run:

    .venv/bin/python benchmarks/ingest_throughput.py [--only convert [--warm] [--stages]]
        [--sequential] [--repeat 3] [--documents] [--model fastembed/all-MiniLM-L6-v2-fp32]
        [--embed-threads N] [--jobs N] [--large [--page-batch N]]
    .venv/bin/python benchmarks/ingest_throughput.py --imports [--repeat 3]
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before any import of citeloom: start-up is part of an ingest

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

LOAD_AT_START = os.getloadavg()[0]
ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "corpus" / "papers"
WORK = ROOT / "benchmarks" / ".work" / "throughput"
EXAMPLES = ROOT / "examples" / "papers"
STAGES = ("hash", "convert", "match", "chunk", "embed", "index")
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def cpu_seconds() -> tuple[float, float]:
    """(this process, its finished children): user + sys seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """This process's peak resident set in MB (Linux reports KiB); RUSAGE_CHILDREN: the
    largest of its finished children's."""
    return resource.getrusage(who).ru_maxrss / 1024


def prepare(model: str | None = None) -> Path:
    """A project of the shared papers with a cold conversion cache and an empty index."""
    WORK.mkdir(parents=True, exist_ok=True)
    for folder in ("var/qdrant", "var/cache/conversions", "var/audit"):
        shutil.rmtree(WORK / folder, ignore_errors=True)
    config = WORK / "citeloom.toml"
    references = ROOT / "tests" / "data" / "papers.csl.json"
    chosen = f'embedding_model = "{model}"\n' if model else ""
    config.write_text(
        f'[project."papers"]\ncollection = "bench-throughput"\nreferences_json = "{references}"\n'
        + chosen,
        encoding="utf-8",
    )
    return config


def document_row(name: str, pages: int, ocr: int, chunks: int, seconds: dict[str, float]) -> dict:
    return {"name": name, "pages": pages, "ocr": ocr, "chunks": chunks, "seconds": seconds}


def build_book(folder: Path, times: int = 7) -> Path:
    """The shared papers joined ``times`` times into one PDF in ``folder``."""
    import pypdfium2 as pdfium

    book = pdfium.PdfDocument.new()
    papers = sorted(PAPERS.glob("*.pdf"))
    for _ in range(times):
        for paper in papers:
            source = pdfium.PdfDocument(str(paper))
            book.import_pages(source)
            source.close()
    path = folder / "book.pdf"
    book.save(str(path))
    book.close()
    return path


def run_ingest(
    config: Path,
    sequential: bool,
    embed_threads: int | None,
    jobs: int = 1,
    inputs: list[Path] | None = None,
) -> list[dict]:
    from citeloom import bootstrap

    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    rows: list[dict] = []
    last = sum(cpu_seconds())

    def progress(outcome: Any, number: int, total: int) -> None:
        nonlocal last
        now = sum(cpu_seconds())
        seconds = dict(outcome.durations)
        seconds["cpu"], last = now - last, now
        if outcome.status != "ingested":
            print(f"  {outcome.path}: {outcome.status} {outcome.error}", file=sys.stderr)
        rows.append(
            document_row(
                Path(outcome.path).name,
                outcome.pages or 0,
                len(outcome.ocr_pages),
                outcome.chunks,
                seconds,
            )
        )

    try:
        # --embed-threads 0: onnxruntime's default (a thread per core), as without the flag
        service = bootstrap.ingest_service(settings, "papers", index, jobs, embed_threads or None)
        if sequential:
            service.convert_ahead = 0
        service.run(inputs or [PAPERS], progress=progress)
    finally:
        index.close()
    return rows


# Docling's PDF stages, timed by --stages (thread CPU around each call of the stage's model)
DOCLING_STAGES = (
    "preprocessing_model",
    "layout_model",
    "layout_postprocessing_model",
    "assemble_model",
    "reading_order_model",
    "heading_hierarchy_model",
)


class StageTimer:
    """Stands in for one stage model of Docling's pipeline and adds up the CPU time of the
    thread that calls it (the stages run in threads of their own)."""

    def __init__(self, model: Any, totals: dict[str, float], name: str) -> None:
        self.model, self.totals, self.name = model, totals, name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.model, attribute)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        result = self.model(*args, **kwargs)
        if hasattr(result, "__next__"):  # page models are generators: time the work itself
            result = list(result)
        self.totals[self.name] = self.totals.get(self.name, 0.0) + time.thread_time() - start
        return result


def time_stages(converter: Any, totals: dict[str, float]) -> None:
    """Wrap the stages of the pipeline that converts the papers (tied to the converter's
    internals: the caching converter's router's Docling converter and its PDF pipeline)."""
    docling = converter.inner.converters[0]
    pipeline = docling._docling(Path("paper.pdf")).pipeline
    for name in DOCLING_STAGES:
        setattr(pipeline, name, StageTimer(getattr(pipeline, name), totals, name))


def run_convert(config: Path, warm: bool, stages: dict[str, float] | None) -> list[dict]:
    from citeloom import bootstrap
    from citeloom.domain.ids import sha256_of_file

    converter = bootstrap.converter(bootstrap.settings(config))
    if warm:  # Docling's imports and pipeline, on a paper outside the measured set
        example = min(EXAMPLES.glob("*.pdf"))
        converter.convert(example, sha256_of_file(example))
    if stages is not None:
        time_stages(converter, stages)
    rows = []
    for pdf in sorted(PAPERS.glob("*.pdf")):
        cpu, wall = sum(cpu_seconds()), time.perf_counter()
        document = converter.convert(pdf, sha256_of_file(pdf))
        seconds = {"convert": time.perf_counter() - wall, "cpu": sum(cpu_seconds()) - cpu}
        rows.append(
            document_row(pdf.name, document.page_count or 0, len(document.ocr_pages), 0, seconds)
        )
    return rows


def child(
    only: str,
    warm: bool,
    stages: bool,
    sequential: bool,
    model: str | None,
    embed_threads: int | None = None,
    jobs: int = 1,
    inputs: list[Path] | None = None,
    page_batch: int | None = None,
) -> None:
    """One measured run; prints one JSON line for the parent."""
    logging.getLogger("docling").setLevel(logging.ERROR)
    config = prepare(model)
    if page_batch is not None:
        from citeloom.adapters.conversion import docling_converter

        docling_converter.PAGE_BATCH = page_batch
    totals: dict[str, float] | None = {} if stages else None
    if only == "convert":
        rows = run_convert(config, warm, totals)
    else:
        rows = run_ingest(config, sequential, embed_threads, jobs, inputs)
    end = time.perf_counter()
    own_cpu, kids_cpu = cpu_seconds()
    result = {
        "load": LOAD_AT_START,
        "only": only,
        "wall": end - STARTED,
        "cpu": own_cpu,
        "cpu_children": kids_cpu,
        "rss": peak_rss_mb(),
        "rss_children": peak_rss_mb(resource.RUSAGE_CHILDREN),
        "documents": rows,
        "stages": totals or {},
    }
    print(json.dumps(result))


# ---------------------------------------------------------------- the parent: run and print
def summary(run: dict) -> dict[str, float]:
    docs = run["documents"]
    pages = sum(d["pages"] for d in docs)
    ocr_pages = sum(d["ocr"] for d in docs)
    chunks = sum(d["chunks"] for d in docs)
    convert = sum(d["seconds"].get("convert", 0.0) for d in docs)
    text_docs = [d for d in docs if not d["ocr"]]
    text_pages = sum(d["pages"] for d in text_docs)
    text_convert = sum(d["seconds"].get("convert", 0.0) for d in text_docs)
    text_cpu = sum(d["seconds"]["cpu"] for d in text_docs)
    rate = text_convert / text_pages if text_pages else 0.0
    ocr_seconds = sum(
        d["seconds"].get("convert", 0.0) - (d["pages"] - d["ocr"]) * rate for d in docs if d["ocr"]
    )
    cpu = run["cpu"] + run["cpu_children"]
    stage_sum = sum(sum(d["seconds"].get(s, 0.0) for s in STAGES) for d in docs)
    out = {
        "pages": pages,
        "chunks": chunks,
        "wall": run["wall"],
        "pages/s": pages / run["wall"],
        "chunks/s": chunks / run["wall"],
        "cpu": cpu,
        "cpu/page": cpu / pages if pages else 0.0,
        "cores": cpu / run["wall"],
        "text pages": text_pages,
        "convert s/page": rate,
        "convert cpu/page": text_cpu / text_pages if text_pages else 0.0,
        "ocr pages": ocr_pages,
        "ocr s/page": ocr_seconds / ocr_pages if ocr_pages else 0.0,
        "outside": run["wall"] - stage_sum,
        "rss": run["rss"],
        "child rss": run.get("rss_children", 0.0),
        "load": run.get("load", 0.0),
    }
    for stage in STAGES:
        out[stage] = sum(d["seconds"].get(stage, 0.0) for d in docs)
    out["convert"] = convert
    return out


def print_documents(run: dict) -> None:
    stages = [s for s in STAGES if any(s in d["seconds"] for d in run["documents"])]
    head = f"{'document':36} {'pages':>5} {'ocr':>3} {'chunks':>6} " + " ".join(
        f"{s:>7}" for s in [*stages, "cpu"]
    )
    print(head)
    print("-" * len(head))
    for d in run["documents"]:
        cells = " ".join(f"{d['seconds'].get(s, 0.0):7.2f}" for s in [*stages, "cpu"])
        print(f"{d['name'][:36]:36} {d['pages']:5} {d['ocr']:3} {d['chunks']:6} {cells}")
    print()


ROWS = [
    ("pages", "{:.0f}"),
    ("chunks", "{:.0f}"),
    ("wall", "{:.1f} s"),
    ("pages/s", "{:.2f}"),
    ("chunks/s", "{:.2f}"),
    ("cpu", "{:.1f} s"),
    ("cpu/page", "{:.3f} s"),
    ("cores", "{:.2f}"),
    *((stage, "{:.1f} s") for stage in STAGES),
    ("outside", "{:.1f} s"),
    ("text pages", "{:.0f}"),
    ("convert s/page", "{:.3f} s"),
    ("convert cpu/page", "{:.3f} s"),
    ("ocr pages", "{:.0f}"),
    ("ocr s/page", "{:.1f} s"),
    ("rss", "{:.0f} MB"),
    ("child rss", "{:.0f} MB"),
    ("load", "{:.1f}"),
]

LABELS = {
    "wall": "wall (process start to end)",
    "cpu": "CPU user+sys (incl. children)",
    "cpu/page": "CPU per page",
    "cores": "cores busy (CPU / wall)",
    "outside": "wall - stages' sum (< 0: overlap)",
    "text pages": "pages without OCR",
    "convert s/page": "convert s/page (no-OCR documents)",
    "convert cpu/page": "CPU/page, no-OCR documents (their stages)",
    "ocr s/page": "OCR s/page (estimated)",
    "rss": "peak RSS",
    "child rss": "peak RSS of a child (worker/Tesseract)",
    "load": "load average (1 min) at start",
    **{stage: f"stage {stage} (s, all documents)" for stage in STAGES},
}


def print_table(summaries: list[dict[str, float]], only: str) -> None:
    head = f"{'':40}" + "".join(f"{f'run {i + 1}':>12}" for i in range(len(summaries)))
    if len(summaries) > 1:
        head += f"{'median':>12}"
    print(head)
    print("-" * len(head))
    for key, fmt in ROWS:
        values = [s[key] for s in summaries]
        if only == "convert" and key in ("chunks", "chunks/s", *STAGES[2:], "hash"):
            continue
        cells = [fmt.format(v) for v in values]
        if len(values) > 1:
            cells.append(fmt.format(statistics.median(values)))
        print(f"{LABELS.get(key, key):40}" + "".join(f"{c:>12}" for c in cells))


def print_stages(runs: list[dict]) -> None:
    """Median ms of CPU per page for each Docling stage (the layout stage is citeloom's rules,
    OCR included), and the rest of the conversion's CPU time: docling-parse decoding in its
    own thread, Tesseract's process, thread hand-offs, the code around the pipeline."""
    per_page: dict[str, list[float]] = {}
    for run in runs:
        pages = sum(d["pages"] for d in run["documents"])
        converting = sum(d["seconds"]["cpu"] for d in run["documents"])
        for name, seconds in run["stages"].items():
            per_page.setdefault(name, []).append(1000 * seconds / pages)
        rest = converting - sum(run["stages"].values())
        per_page.setdefault("rest", []).append(1000 * rest / pages)
    print("\nCPU per page by stage (ms, median of runs):")
    for name, values in sorted(per_page.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {name.removesuffix('_model'):40}{statistics.median(values):8.1f}")


# ---------------------------------------------------------------- importing Docling's pipeline
IMPORTS = ("torch hidden (rules path)", "torch found")


def child_import(kind: str) -> None:
    """Import the rules path's Docling pipeline as the converter does, or plainly; print the
    CPU time and memory it took as one JSON line."""
    from citeloom.adapters.conversion.slim_import import without_torch

    before_cpu, before_rss = sum(cpu_seconds()), peak_rss_mb()
    if kind == IMPORTS[0]:
        with without_torch():
            from citeloom.adapters.conversion.rules_pipeline import RulesPdfConverter
    else:
        from citeloom.adapters.conversion.rules_pipeline import RulesPdfConverter  # noqa: F401
    result = {
        "cpu": sum(cpu_seconds()) - before_cpu,
        "rss": peak_rss_mb(),
        "rss_added": peak_rss_mb() - before_rss,
        "torch": "torch" in sys.modules,
    }
    print(json.dumps(result))


def compare_imports(repeat: int) -> None:
    load = os.getloadavg()
    print(
        "importing Docling's PDF pipeline (citeloom.adapters.conversion.rules_pipeline), "
        f"each a fresh process; load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    head = f"{'':28}{'CPU s':>22}{'peak RSS MB':>22}{'added MB':>22}{'torch':>8}"
    print(head)
    print("-" * len(head))
    for kind in IMPORTS:
        runs = []
        for _ in range(repeat):
            out = subprocess.run(
                [sys.executable, __file__, "--child-import", kind],
                check=True,
                stdout=subprocess.PIPE,
                text=True,
            )
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        cells = [
            ", ".join(f"{r['cpu']:.2f}" for r in runs),
            ", ".join(f"{r['rss']:.0f}" for r in runs),
            ", ".join(f"{r['rss_added']:.0f}" for r in runs),
            "yes" if all(r["torch"] for r in runs) else "no",
        ]
        print(f"{kind:28}{cells[0]:>22}{cells[1]:>22}{cells[2]:>22}{cells[3]:>8}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["ingest", "convert"], default="ingest")
    parser.add_argument("--repeat", type=int, default=1, help="runs, each a fresh process")
    parser.add_argument("--documents", action="store_true", help="seconds per document")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="with --only convert: start Docling on an example paper first (per-page CPU "
        "without the start-up)",
    )
    parser.add_argument(
        "--stages",
        action="store_true",
        help="with --only convert: CPU per page of each Docling stage",
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="ingest on one thread (convert, then embed) instead of converting ahead",
    )
    parser.add_argument(
        "--imports",
        action="store_true",
        help="CPU and memory of importing Docling's PDF pipeline, torch hidden or found",
    )
    parser.add_argument(
        "--model", help="the project's embedding_model (default: the configured default)"
    )
    parser.add_argument(
        "--embed-threads",
        type=int,
        help="the embedder's threads in the ingest (default: what citeloom picks, ADR 0022; "
        "0: onnxruntime's own default)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="conversion worker processes (ingest --jobs N; 1: a thread, no worker)",
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="ingest the 14 papers joined seven times into one 1,064-page PDF (built here)",
    )
    parser.add_argument(
        "--page-batch", type=int, help="pages converted at once (default: citeloom's own)"
    )
    parser.add_argument("--inputs", type=Path, nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-import", choices=IMPORTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_import:
        child_import(args.child_import)
        return
    if args.child:
        child(
            args.only,
            args.warm,
            args.stages,
            args.sequential,
            args.model,
            args.embed_threads,
            args.jobs,
            args.inputs,
            args.page_batch,
        )
        return
    if args.imports:
        compare_imports(args.repeat)
        return
    if args.large:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="citeloom-book-") as folder:
            args.inputs = [build_book(Path(folder))]
            measure(args)
        return
    measure(args)


def measure(args: argparse.Namespace) -> None:
    """Each run in a fresh child process; the table of their figures."""
    load = os.getloadavg()
    what = f"{args.inputs[0]} (the papers joined 7 times)" if args.inputs else PAPERS
    print(
        f"{'conversion alone' if args.only == 'convert' else 'ingest'} of {what} "
        f"(cold conversion cache{'; Docling started first' if args.warm else ''}"
        f"{'; one thread' if args.sequential and args.only == 'ingest' else ''}"
        f"{f'; {args.jobs} conversion workers' if args.jobs > 1 else ''}"
        f"{f'; model {args.model}' if args.model else ''}); "
        f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    runs = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                "--only",
                args.only,
                *(["--warm"] if args.warm else []),
                *(["--stages"] if args.stages else []),
                *(["--sequential"] if args.sequential else []),
                *(["--model", args.model] if args.model else []),
                *(
                    ["--embed-threads", str(args.embed_threads)]
                    if args.embed_threads is not None
                    else []
                ),
                *(["--jobs", str(args.jobs)] if args.only == "ingest" else []),
                *(["--inputs", *map(str, args.inputs)] if args.inputs else []),
                *(["--page-batch", str(args.page_batch)] if args.page_batch else []),
            ],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
        run = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append(run)
        if args.documents:
            print_documents(run)
    print_table([summary(r) for r in runs], args.only)
    if args.stages:
        print_stages(runs)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
