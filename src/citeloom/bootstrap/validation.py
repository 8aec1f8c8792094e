"""What ``validate`` asks of the adapters: which layout stage converts PDFs and whether OCR can
run, and each project's parts built one at a time so that each can fail on its own check
(``services.usecases.validate`` runs the checks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citeloom.bootstrap import embedder, index, metadata, relations, wordpiece_chunker

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.services.validate import ProjectComponents, ValidationCheck


def conversion_checks(settings: Settings) -> list[ValidationCheck]:
    """Which layout stage converts PDFs, and whether OCR can run."""
    from citeloom.adapters.conversion.docling_converter import describe_layout
    from citeloom.adapters.conversion.ocr_check import ocr_status
    from citeloom.domain.errors import CiteloomError
    from citeloom.services.validate import ValidationCheck

    conversion = settings.conversion
    try:
        layout = ValidationCheck(
            "layout",
            True,
            describe_layout(
                conversion.layout, conversion.artifacts_path, settings.environment.hf_hub
            ),
        )
    except CiteloomError as error:
        layout = ValidationCheck("layout", False, str(error), 'set [conversion] layout = "auto"')
    ok, detail, fix = ocr_status(conversion.ocr_languages, conversion.ocr)
    return [layout, ValidationCheck("ocr", ok, detail, fix)]


def project_components(
    settings: Settings, project_name: str, allow_download: bool = False
) -> ProjectComponents:
    from citeloom.services.validate import ProjectComponents

    project = settings.get_project(project_name)
    return ProjectComponents(
        collection=project.collection,
        embed_model=project.embedding_model,
        max_tokens=settings.chunking.max_tokens,
        metadata=lambda: metadata(settings, project),
        embedder=lambda: embedder(settings, project, allow_download),
        # validate reports an oversized max_tokens as its own check, so build it unchecked
        chunker=lambda emb: wordpiece_chunker(settings, emb.tokenizer_dir),  # type: ignore[attr-defined]
        index=lambda: index(settings),
        others=tuple(p.collection for name, p in settings.project.items() if name != project_name),
        languages=tuple(project.languages),
        relations=lambda: relations(settings, project),
    )
