"""validate: every check a run of a project (or of every project) depends on, each with the
fix when it fails: the config, the conversion's layout stage and OCR, the embedding models
here, and per project its library, model, tokenizer, index and collection."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from citeloom.domain.errors import CiteloomError
from citeloom.services.usecases.base import Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies
    from citeloom.services.validate import ValidationReport


class ValidateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    project: str | None = Field(None, description="One project; None: every configured one.")
    config: str = Field(description="The config file, as the report names it.")
    allow_download: bool = Field(False, description="Let FastEmbed download a missing model.")


class ValidationCheckOut(Response):
    check: str = Field(description="What was checked.")
    ok: bool = Field(description="Whether it passed.")
    warning: bool = Field(description="Passes, but a run will not do what you likely expect.")
    detail: str = Field(description="What was found.")
    fix: str | None = Field(description="What to do, when it failed or warns.")


class ValidationResponse(Response):
    """``citeloom validate --json``."""

    project: str | None = Field(description="The project validated; null: the config only.")
    ok: bool = Field(description="Every check passed.")
    checks: list[ValidationCheckOut] = Field(description="Each check, in order.")
    exit_code: int = Field(
        description="What citeloom validate exits with: 0 when every check passed, else the "
        "highest exit code of the checks that failed (3: index, 4: another project's "
        "collection or model, 1: documents stored in part)."
    )

    @classmethod
    def of(cls, report: ValidationReport) -> ValidationResponse:
        failed = [c.exit_code for c in report.checks if not c.ok]
        return cls(
            project=report.project,
            ok=report.ok,
            checks=[
                ValidationCheckOut(
                    check=c.name, ok=c.ok, warning=c.warning, detail=c.detail, fix=c.fix
                )
                for c in report.checks
            ],
            exit_code=max(failed, default=0),
        )

    @property
    def warnings(self) -> int:
        return sum(c.ok and c.warning for c in self.checks)


def validate(
    deps: Dependencies, request: ValidateRequest, deadline: Deadline | None
) -> ValidationResponse:
    """Every check a run of the project (None: of every project) depends on."""
    from citeloom.services.validate import (
        ValidationCheck,
        ValidationReport,
        models_check,
        validate_project,
    )

    builders = deps.builders
    report = ValidationReport(project=request.project)
    names = [request.project] if request.project else sorted(builders.projects)
    report.checks.append(
        ValidationCheck(
            "config", True, f"{request.config} parses; projects: {', '.join(names) or 'none'}"
        )
    )
    report.checks.extend(builders.conversion_checks())
    report.checks.append(models_check(builders.available_models()))
    for name in names:
        try:
            parts = builders.project_components(name, request.allow_download)
        except CiteloomError as error:
            report.checks.append(ValidationCheck(f"project {name}", False, str(error)))
            continue
        for check in validate_project(name, parts):
            report.checks.append(
                check if len(names) == 1 else replace(check, name=f"{name}: {check.name}")
            )
    return ValidationResponse.of(report)


def config_refused(project: str | None, error: CiteloomError) -> ValidationResponse:
    """The report of a config that cannot be read: its one failing check names the fix."""
    from citeloom.services.validate import ValidationCheck, ValidationReport

    return ValidationResponse.of(
        ValidationReport(project=project, checks=[ValidationCheck("config", False, str(error))])
    )


VALIDATE = UseCase("validate", ValidateRequest, ValidationResponse, validate)
