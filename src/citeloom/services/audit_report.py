"""Reading a run's audit back: what ``citeloom audit show`` prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunSummary:
    correlation_id: str
    started: str | None = None
    finished: str | None = None
    project: str | None = None
    collection: str | None = None
    embed_model: str | None = None
    inputs: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    ocr: list[str] = field(default_factory=list)
    relabelled: list[dict[str, Any]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    outcome: str = "incomplete (the run was killed, or is still running)"
    seconds: float = 0.0


def summarise_run(correlation_id: str, events: list[dict[str, Any]]) -> RunSummary:
    run = RunSummary(correlation_id)
    for event in events:
        kind = event.get("event")
        if kind == "run_started":
            run.started = event.get("ts")
            run.project, run.collection = event.get("project"), event.get("collection")
            run.embed_model, run.inputs = event.get("embed_model"), event.get("inputs", [])
        elif kind == "document":
            run.statuses[event.get("status", "?")] += 1
            run.seconds += sum((event.get("durations_s") or {}).values())
            if event.get("status") == "failed":
                run.failures.append({"path": event.get("path"), "error": event.get("error")})
            elif event.get("metadata") and event.get("status") == "ingested":
                run.unmatched.append(f"{event.get('path')} ({event['metadata']})")
            if event.get("ocr_pages"):
                run.ocr.append(f"{event.get('path')}: pages {event['ocr_pages']}")
        elif kind == "relabelled":
            run.relabelled.append({k: event.get(k) for k in ("path", "old", "new")})
        elif kind == "pruned":
            run.pruned.append(event.get("path", ""))
        elif kind == "run_aborted":
            run.outcome = f"aborted: {event.get('error')}"
        elif kind == "run_interrupted":
            run.outcome = f"interrupted (Ctrl-C), {event.get('left')} documents left"
        elif kind == "run_finished":
            run.finished = event.get("ts")
            if run.outcome.startswith("incomplete"):
                run.outcome = "finished"
    return run
