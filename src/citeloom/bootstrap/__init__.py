"""The one place that wires adapters to services.

Every builder imports its adapter inside the function, so an entry point pays only for what
it uses: ``citeloom query`` never imports Docling, and ``--help`` imports no adapter at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from citeloom.config import ConversionConfig, ProjectConfig, Settings, load_settings
from citeloom.domain.errors import ConfigError
from citeloom.domain.models import chunk_token_limit

if TYPE_CHECKING:
    from citeloom.adapters.conversion.cache import CachingConverter
    from citeloom.adapters.embedding.bf16_minilm import Bf16MiniLM
    from citeloom.adapters.embedding.loader import LoadedEmbedder
    from citeloom.adapters.embedding.local_models import ModelSources
    from citeloom.adapters.embedding.tokenizer import ModelTokens
    from citeloom.ports import (
        AuditLog,
        Chunker,
        ConversionWorker,
        DocumentText,
        Embedder,
        Index,
        LibraryFiles,
        MetadataResolver,
        RelationSource,
    )
    from citeloom.services.answer import AnswerService
    from citeloom.services.browse import BrowseService
    from citeloom.services.check import CheckService
    from citeloom.services.evidence import SentenceEvidence, SentenceVectors, WarmEvidence
    from citeloom.services.ingest import IngestService
    from citeloom.services.notes import NoteBook, NoteService
    from citeloom.services.query import QueryService
    from citeloom.services.reindex import ReindexService, TermsReindex
    from citeloom.services.watch import RunOnce, WatchService


def settings(config: Path | None) -> Settings:
    return load_settings(config)


def index(
    settings: Settings,
    on_wait: Callable[[str], None] | None = None,
    busy_timeout_s: float | None = None,
) -> Index:
    """The configured index, to use as ``with bootstrap.index(settings) as index:``.

    ``busy_timeout_s``: an index for one call of a long-lived server (MCP): it waits this
    long for another process holding an embedded project instead of [qdrant] busy_timeout_s
    (a call has its own time limit), and lets a process already waiting go first."""
    from citeloom.adapters.qdrant.core import QdrantIndex

    if settings.qdrant.url:
        from citeloom.adapters.qdrant.server_engine import ServerEngine

        return QdrantIndex(
            ServerEngine(
                url=settings.qdrant.url,
                api_key=settings.qdrant_api_key,
                timeout_ms=settings.qdrant.timeout_ms,
                shard_number=settings.qdrant.shard_number,
                replication_factor=settings.qdrant.replication_factor,
                write_consistency_factor=settings.qdrant.write_consistency_factor,
            )
        )
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine

    # a server's call: short waits, and a waiting ingest goes first
    server_call = busy_timeout_s is not None
    return QdrantIndex(
        EdgeEngine(
            settings.paths.index_dir,
            busy_timeout_s=settings.qdrant.busy_timeout_s
            if busy_timeout_s is None
            else busy_timeout_s,
            on_wait=on_wait,
            yield_to_waiters=server_call,
        )
    )


def tokenizer_id(settings: Settings, model_id: str) -> str | None:
    """The fingerprint of a model's tokenizer, from its files and without loading the model
    (None when the model is not on this machine)."""
    from citeloom.adapters.embedding.models import resolve_model
    from citeloom.adapters.embedding.tokenizer import tokenizer_fingerprint
    from citeloom.domain.errors import CiteloomError

    try:
        spec = resolve_model(model_id, settings.paths.cache_dir, model_sources(settings))
    except CiteloomError:
        return None
    return tokenizer_fingerprint(spec.tokenizer_dir)


def model_dimensions(settings: Settings, project: ProjectConfig) -> int | None:
    """How long the project's model's vectors are (None when the model cannot load here: a
    machine that only stores a project, such as a lab server, still imports it)."""
    from citeloom.domain.errors import CiteloomError

    try:
        return embedder(settings, project).dimensions
    except CiteloomError:
        return None


def model_sources(settings: Settings, allow_download: bool = False) -> ModelSources:
    """Where models that are not built in are looked for ([embedding] in the config), and
    this user's model cache."""
    from citeloom.adapters.embedding.local_models import ModelSources, default_fastembed_caches

    configured = settings.embedding.fastembed_cache
    caches = default_fastembed_caches(settings.paths.cache_dir, settings.environment.fastembed_home)
    return ModelSources(
        model_path=settings.embedding.model_path,
        fastembed_caches=(configured,) if configured else caches,
        allow_download=allow_download,
        model_cache=settings.environment.model_cache,
    )


def embedder(
    settings: Settings,
    project: ProjectConfig,
    allow_download: bool = False,
    threads: int | None = None,
) -> LoadedEmbedder:
    """A built-in model with onnxruntime and the tokenizer only (never FastEmbed, torch or
    PIL): queries start fast; any other through FastEmbed. A model that is exported on first
    use (the fp32 MiniLM) is built here, once; one that is not here is downloaded only with
    ``allow_download``. ``threads``: onnxruntime's intra-op threads (None: its default, one
    per physical core, pinned)."""
    from citeloom.adapters.embedding.loader import load_embedder

    return load_embedder(
        project.embedding_model,
        cache_dir=settings.paths.cache_dir,
        sources=model_sources(settings, allow_download),
        threads=threads,
    )


def document_embedder(
    settings: Settings,
    project: ProjectConfig,
    allow_download: bool = False,
    threads: int | None = None,
) -> LoadedEmbedder | Bf16MiniLM:
    """What an ingest or a reindex embeds chunks with: the project's model, in bfloat16 where
    that is the same model's vectors at less CPU ([embedding] document_precision, ADR 0031)."""
    from citeloom.adapters.embedding.loader import load_document_embedder

    return load_document_embedder(
        project.embedding_model,
        cache_dir=settings.paths.cache_dir,
        sources=model_sources(settings, allow_download),
        threads=threads,
        precision=settings.embedding.document_precision,
    )


def available_models(settings: Settings) -> list[str]:
    """The embedding models that run here without a download (for validate)."""
    from citeloom.adapters.embedding.models import available_models as found

    return found(settings.paths.cache_dir, model_sources(settings))


def chunker(settings: Settings, embedder: ModelTokens) -> Chunker:
    window = chunk_token_limit(embedder.max_tokens)
    if settings.chunking.max_tokens > window:
        raise ConfigError(
            f"{settings.config_path}: [chunking] max_tokens = {settings.chunking.max_tokens} is "
            f"more than {embedder.model_id} sees ({window} word pieces); the rest of every "
            f"chunk would be dropped unembedded. Set max_tokens to at most {window}."
        )
    return wordpiece_chunker(settings, embedder.tokenizer_dir)


def wordpiece_chunker(settings: Settings, tokenizer_dir: Path) -> Chunker:
    from citeloom.adapters.wordpiece_chunker import WordPieceChunker

    return WordPieceChunker(
        tokenizer_dir,
        max_tokens=settings.chunking.max_tokens,
        overlap_tokens=settings.chunking.overlap_tokens,
        heading_context=settings.chunking.heading_context,
    )


def converter(settings: Settings) -> CachingConverter:
    """Docling for PDF/DOCX/HTML/Markdown, plain text as is, behind the conversion cache.
    Building it imports no Docling: that happens on the first conversion."""
    return converter_of(settings.conversion, settings.paths.cache_dir, settings.environment.hf_hub)


def converter_of(conversion: ConversionConfig, cache_dir: Path, hf_hub: Path) -> CachingConverter:
    """``converter`` from the parts of the settings it reads: what a conversion worker
    process is sent (they pickle; the settings carry this process's memo and API key)."""
    from citeloom.adapters.conversion.cache import CachingConverter
    from citeloom.adapters.conversion.docling_converter import DoclingConverter
    from citeloom.adapters.conversion.plain_text import PlainTextConverter
    from citeloom.adapters.conversion.router import FormatRouter

    docling = DoclingConverter(
        ocr=conversion.ocr,
        ocr_languages=tuple(conversion.ocr_languages),
        timeout_s=conversion.timeout_s,
        max_pages=conversion.max_pages,
        layout=conversion.layout,
        artifacts_path=conversion.artifacts_path,
        hub=hf_hub,
    )
    return CachingConverter(FormatRouter([docling, PlainTextConverter()]), cache_dir)


def conversion_workers(settings: Settings, jobs: int | None) -> list[ConversionWorker]:
    """``ingest --jobs N``: N worker processes, each building its own converter (ADR 0024);
    none for one job (conversion stays on a thread of this process, as before). None: as
    many as this machine's cores and memory suit (``workers.machine_jobs``)."""
    from functools import partial

    from citeloom.adapters.conversion.workers import WorkerConverter, machine_jobs

    count = machine_jobs() if jobs is None else jobs
    if count <= 1:
        return []
    build = partial(
        converter_of, settings.conversion, settings.paths.cache_dir, settings.environment.hf_hub
    )
    return [WorkerConverter(build, f"citeloom-worker-{n}") for n in range(1, count + 1)]


def metadata(settings: Settings, project: ProjectConfig) -> MetadataResolver:
    """The project's library: its Zotero data directory when it has one (which then also
    lists the files to ingest, ``library_files``), else its CSL-JSON or BibTeX export (a
    ``.bib`` kept parsed in cache_dir by its hash)."""
    if project.zotero is not None:
        from citeloom.adapters.zotero.resolver import ZoteroMetadataResolver

        return ZoteroMetadataResolver(
            project.zotero,
            base_dir=project.zotero_base_dir,
            references_json=project.references_json,
            threshold=settings.matching.title_threshold,
            margin=settings.matching.title_margin,
            cache_dir=settings.paths.cache_dir,
        )
    from citeloom.adapters.csl_references import CslMetadataResolver

    assert project.references_json is not None  # the config holds one of the two
    return CslMetadataResolver(
        project.references_json,
        threshold=settings.matching.title_threshold,
        margin=settings.matching.title_margin,
        cache_dir=settings.paths.cache_dir,
    )


def relations(settings: Settings, project: ProjectConfig) -> RelationSource:
    """The library's relations (inferred, and declared in the project's relations file),
    cached under cache_dir by the hash of both files, and in this process's memo."""
    from citeloom.adapters.library_relations import LibraryRelations

    return LibraryRelations(
        project.references_json,
        project.relations,
        settings.paths.cache_dir,
        memo=settings.relations_memo,
    )


def library_files(resolver: MetadataResolver) -> LibraryFiles | None:
    """The files the library holds itself (a Zotero data directory), or None."""
    from citeloom.adapters.zotero.resolver import ZoteroMetadataResolver

    return resolver if isinstance(resolver, ZoteroMetadataResolver) else None


def audit_log(settings: Settings) -> AuditLog:
    from citeloom.adapters.jsonl_audit import JsonlAuditLog

    return JsonlAuditLog(settings.paths.audit_dir)


class Pipeline(TypedDict):
    """The ports ingest and reindex both run on, typed so mypy checks each service's
    keywords when they are splatted in."""

    project: str
    collection: str
    converter: CachingConverter
    chunker: Chunker
    metadata: MetadataResolver
    library_files: LibraryFiles | None
    embedder: Embedder
    index: Index
    audit: AuditLog
    languages: tuple[str, ...]


def _pipeline(
    settings: Settings,
    project_name: str,
    index: Index,
    embedding_model: str | None = None,
    allow_download: bool = False,
    embed_threads: int | None = None,
) -> Pipeline:
    """``embedding_model``: another than the project's, for a reindex; ``embed_threads``: the
    embedder's threads."""
    project = settings.get_project(project_name)
    resolver = metadata(settings, project)
    resolver.references()  # a broken references file stops the run before anything else
    if embedding_model is not None:
        project = project.model_copy(update={"embedding_model": embedding_model})
    emb = document_embedder(settings, project, allow_download, embed_threads)
    return Pipeline(
        project=project_name,
        collection=project.collection,
        converter=converter(settings),
        chunker=chunker(settings, emb),
        metadata=resolver,
        library_files=library_files(resolver),
        embedder=emb,
        index=index,
        audit=audit_log(settings),
        languages=tuple(project.languages),
    )


def ingest_service(
    settings: Settings,
    project_name: str,
    index: Index,
    jobs: int | None = 1,
    embed_threads: int | None = None,
) -> IngestService:
    """``jobs``: conversion worker processes (``conversion_workers``). ``embed_threads``: the
    embedder's, onnxruntime's default (a thread per core) unless given: one thread fewer saved
    4-7 % of the CPU but cost a quarter of the wall time on two cores, a trade a researcher
    waiting for an ingest does not want (ADR 0022); ``ingest_throughput.py --embed-threads N``
    measures it again."""
    from citeloom.services.ingest import IngestService

    project = settings.get_project(project_name)
    return IngestService(
        **_pipeline(settings, project_name, index, embed_threads=embed_threads),
        relations=relations(settings, project),
        workers=conversion_workers(settings, jobs),
    )


def reindex_service(
    settings: Settings,
    project_name: str,
    index: Index,
    embedding_model: str | None,
    allow_download: bool = False,
) -> ReindexService | TermsReindex:
    """With a model: everything rebuilt from cached conversions and embedded with it. Without:
    only the BM25 vectors, for the project's languages (nothing is embedded; the chunker is
    built from the project's tokenizer alone, for the heading context of each chunk)."""
    from citeloom.services.reindex import ReindexService, TermsReindex

    if embedding_model is not None:
        return ReindexService(
            **_pipeline(settings, project_name, index, embedding_model, allow_download)
        )
    from citeloom.adapters.embedding.models import resolve_model

    project = settings.get_project(project_name)
    spec = resolve_model(project.embedding_model, settings.paths.cache_dir, model_sources(settings))
    return TermsReindex(
        project=project_name,
        collection=project.collection,
        index=index,
        chunker=wordpiece_chunker(settings, spec.tokenizer_dir),
        audit=audit_log(settings),
        languages=tuple(project.languages),
    )


def query_service(
    settings: Settings, project_name: str, index: Index, warm: Embedder | None = None
) -> QueryService:
    """``warm``: an embedder already loaded (a server loads each model once)."""
    from citeloom.services.query import QueryService

    project = settings.get_project(project_name)
    return QueryService(
        project=project_name,
        collection=project.collection,
        embedder=warm or embedder(settings, project),
        index=index,
        signals="hybrid" if project.hybrid_enabled else "dense",
        fusion=project.fusion,
        weights=project.fusion_weights,
        rrf_k=project.rrf_k,
        candidates=settings.query.candidates,
        min_confidence=settings.query.min_confidence,
        languages=tuple(project.languages),
        relations=relations(settings, project),
    )


def browse_service(settings: Settings, project_name: str, index: Index) -> BrowseService:
    from citeloom.services.browse import BrowseService

    project = settings.get_project(project_name)
    return BrowseService(
        project=project_name,
        collection=project.collection,
        index=index,
        relations=relations(settings, project),
    )


def note_service(
    settings: Settings, project_name: str, index: Index, warm: LoadedEmbedder | None = None
) -> NoteService:
    """Notes go through the ingest pipeline's steps; they are kept in the index only."""
    from citeloom.services.notes import NoteService

    project = settings.get_project(project_name)
    resolver = metadata(settings, project)
    resolver.references()  # a broken references file stops the call before anything else
    emb = warm or embedder(settings, project)
    return NoteService(
        project=project_name,
        collection=project.collection,
        converter=converter(settings),
        chunker=chunker(settings, emb),
        metadata=resolver,
        embedder=emb,
        index=index,
        audit=audit_log(settings),
        languages=tuple(project.languages),
    )


def note_book(settings: Settings, project_name: str, index: Index) -> NoteBook:
    """Listing and deleting notes: the index only, no model loaded."""
    from citeloom.services.notes import NoteBook

    collection = settings.get_project(project_name).collection
    return NoteBook(project_name, collection, index, audit_log(settings))


def document_text(settings: Settings) -> DocumentText:
    """Stored page texts from the conversion cache; reading them never starts Docling."""
    from citeloom.adapters.conversion.cache import CachingConverter
    from citeloom.adapters.conversion.stored_text import CachedDocumentText
    from citeloom.domain.errors import CiteloomError

    try:
        cache = converter(settings)
    except CiteloomError:  # e.g. trained layout without weights: any cached version serves
        cache = None
    return CachedDocumentText(
        cache if isinstance(cache, CachingConverter) else None, settings.paths.cache_dir
    )


def sentence_vectors(settings: Settings, model_id: str) -> SentenceVectors:
    """An empty cache of sentence vectors, kept on disk for ``model_id`` (check's cited
    pages are embedded once, not on every run of a hook)."""
    from citeloom.adapters.embedding.sentence_store import FileSentenceStore
    from citeloom.services.evidence import SentenceVectors

    return SentenceVectors(
        store=FileSentenceStore(settings.paths.cache_dir / "sentences", model_id)
    )


def sentence_evidence(
    settings: Settings,
    project_name: str,
    index: Index,
    emb: Embedder,
    warm: WarmEvidence | None = None,
) -> SentenceEvidence:
    """``warm``: a long-lived process's sentence vectors (of ``emb``'s model) and stored
    texts, so that repeated answers do not embed and parse the same papers again."""
    from citeloom.services.evidence import SentenceEvidence

    return SentenceEvidence(
        collection=settings.get_project(project_name).collection,
        embedder=emb,
        index=index,
        texts=warm.texts if warm else document_text(settings),
        vectors=warm.vectors if warm else None,
    )


def answer_service(
    settings: Settings,
    project_name: str,
    index: Index,
    warm: Embedder | None = None,
    evidence: WarmEvidence | None = None,
) -> AnswerService:
    from citeloom.services.answer import AnswerService

    query = query_service(settings, project_name, index, warm)
    return AnswerService(
        query,
        sentence_evidence(settings, project_name, index, query.embedder, evidence),
        min_confidence=settings.answer.min_confidence,
        passages=settings.answer.passages,
    )


def check_service(
    settings: Settings,
    project_name: str,
    index: Index,
    warm: Embedder | None = None,
    evidence: WarmEvidence | None = None,
) -> CheckService:
    from citeloom.services.check import CheckService

    project = settings.get_project(project_name)
    query = query_service(settings, project_name, index, warm)
    from citeloom.adapters.lexicon import antonyms
    from citeloom.domain.verdicts import parse_verdicts
    from citeloom.services.claim_judge import ClaimJudge

    sentences = sentence_evidence(settings, project_name, index, query.embedder, evidence)
    # a process's warm vectors (kept on disk by WarmModels), else this check's own
    vectors = evidence.vectors if evidence is not None else None
    if vectors is None:
        vectors = sentence_vectors(settings, query.embedder.model_id)
    judge = ClaimJudge(
        query.embedder,
        sentences.term_weights,
        settings.check.thresholds(),
        vectors,
        topic_share=settings.check.topic_share,
        antonyms=antonyms(),
    )
    return CheckService(
        query,
        sentences,
        [r.citekey for r in metadata(settings, project).references()],
        judge,
        fail_on=parse_verdicts(settings.check.fail_on),
    )


def watch_service(
    settings: Settings,
    project_name: str,
    paths: Sequence[Path],
    settle_s: float,
    run_once: RunOnce,
) -> WatchService:
    """``watch``: the project's sources (``paths``, its references file and Zotero data
    directory) followed, each settled batch of changes handed to ``run_once``
    (``usecases.watch``: one ingest run with its own hold of the index)."""
    from citeloom.adapters.file_watcher import WatchfilesWatcher
    from citeloom.services.watch import WatchService, WatchSources

    project = settings.get_project(project_name)
    files = library_files(metadata(settings, project))
    sources = WatchSources(
        folders=[p.absolute() for p in paths],
        references=project.references_json,
        library_root=files.root if files is not None else None,
        library_files=files.watched() if files is not None else [],
    )
    for path in paths:
        if not path.exists():
            raise ConfigError(f"{path}: no such file or folder. Check the path you passed.")
    return WatchService(
        project=project_name,
        sources=sources,
        run_once=run_once,
        watcher=WatchfilesWatcher(settle_s),
        supports=converter(settings).supports,
    )
