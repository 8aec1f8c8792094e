"""audit: ingest runs read back from their audit files, one by a unique prefix of its
correlation id, or all of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from citeloom.services.usecases.base import NoRequest, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.audit_report import RunSummary
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    correlation_id: str = Field(
        min_length=1, description="The id ingest printed (a unique prefix is enough)."
    )


class RunOut(Response):
    """One ingest run, read back from its audit (``citeloom audit show --json``)."""

    correlation_id: str = Field(description="The run's id.")
    started: str | None = Field(description="When it started.")
    finished: str | None = Field(description="When it finished.")
    outcome: str = Field(description="How it ended.")
    project: str | None = Field(description="The project.")
    collection: str | None = Field(description="Its collection.")
    embed_model: str | None = Field(description="The embedding model.")
    inputs: list[str] = Field(description="What it was asked to ingest.")
    documents: dict[str, int] = Field(description="Documents by status.")
    failures: list[dict[str, Any]] = Field(description="Files that failed, with the error.")
    unmatched: list[str] = Field(description="Files matched to no entry.")
    ocr: list[str] = Field(description="Files that needed OCR.")
    relabelled: list[dict[str, Any]] = Field(description="Documents whose citekey changed.")
    pruned: list[str] = Field(description="Documents removed.")
    document_seconds: float = Field(description="Seconds spent on documents.")

    @classmethod
    def of(cls, run: RunSummary) -> RunOut:
        return cls(
            correlation_id=run.correlation_id,
            started=run.started,
            finished=run.finished,
            outcome=run.outcome,
            project=run.project,
            collection=run.collection,
            embed_model=run.embed_model,
            inputs=run.inputs,
            documents=dict(run.statuses),
            failures=run.failures,
            unmatched=run.unmatched,
            ocr=run.ocr,
            relabelled=run.relabelled,
            pruned=run.pruned,
            document_seconds=round(run.seconds, 2),
        )


class RunsResponse(Response):
    """``citeloom audit list --json``."""

    runs: list[RunOut] = Field(description="Every run with an audit file.")


def audit_run(deps: Dependencies, request: RunRequest, deadline: Deadline | None) -> RunOut:
    """One ingest run, found by a unique prefix of its correlation id."""
    from citeloom.services.audit_report import summarise_run

    return RunOut.of(summarise_run(*deps.builders.audit_run(request.correlation_id)))


def audit_runs(deps: Dependencies, request: NoRequest, deadline: Deadline | None) -> RunsResponse:
    from citeloom.services.audit_report import summarise_run

    runs = [summarise_run(name, events) for name, events in deps.builders.audit_runs()]
    return RunsResponse(runs=[RunOut.of(r) for r in runs])


AUDIT_RUN = UseCase("audit_run", RunRequest, RunOut, audit_run)
AUDIT_RUNS = UseCase("audit_runs", NoRequest, RunsResponse, audit_runs)
