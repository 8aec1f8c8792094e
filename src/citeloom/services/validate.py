"""The validate use case: every check a run depends on, each with the fix when it fails.

Checks run independently (a broken references file does not hide an unreachable index), and
components are built lazily through factories so a failure to build one is itself a result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.errors import CiteloomError, CollectionOwnerMismatch, ExitCode
from citeloom.domain.languages import (
    DEFAULT_LANGUAGES,
    MULTILINGUAL_MODEL,
    reads_languages,
    same_languages,
    shown,
    spoken,
)
from citeloom.domain.models import CollectionInfo, DocumentSummary, chunk_token_limit
from citeloom.ports import Chunker, Embedder, Index, LibraryAudit, MetadataResolver, RelationSource
from citeloom.services.inspection import repair
from citeloom.services.staging import leftovers


@dataclass(frozen=True)
class ValidationCheck:
    """One thing a run depends on, as ``citeloom validate`` found it (not a citation's check:
    that is ``check``'s ``CitationCheck``)."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None
    exit_code: int = int(ExitCode.USAGE)  # what ``validate`` exits with if this check fails
    warning: bool = False  # passes, but a run will not do what the user likely expects


@dataclass
class ValidationReport:
    project: str | None
    checks: list[ValidationCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def warnings(self) -> int:
        return sum(c.ok and c.warning for c in self.checks)


@dataclass
class ProjectComponents:
    """Factories for what a project run needs; each may raise ``CiteloomError``."""

    collection: str
    embed_model: str
    max_tokens: int
    metadata: Callable[[], MetadataResolver]
    embedder: Callable[[], Embedder]
    chunker: Callable[[Embedder], Chunker]
    index: Callable[[], Index]
    extra_checks: list[ValidationCheck] = field(default_factory=list)
    others: tuple[str, ...] = ()  # the other projects' collections: never this one's leftovers
    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # what the project's BM25 stems for
    relations: Callable[[], RelationSource] | None = None


def _attempt(build: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return build(), None
    except CiteloomError as error:
        return None, str(error)


def models_check(available: Sequence[str]) -> ValidationCheck:
    """Which embedding models run here without a download: what a project may choose."""
    if not available:
        return ValidationCheck(
            "embedding models",
            False,
            "no embedding model runs here",
            "reinstall citeloom (pip install -e .), which brings the default model",
        )
    return ValidationCheck("embedding models", True, "available here: " + "; ".join(available))


def relations_check(build: Callable[[], RelationSource]) -> ValidationCheck:
    """The relations file parses and names entries of the library; what is inferred."""
    source, error = _attempt(build)
    graph = None
    if source is not None:
        graph, error = _attempt(source.graph)
    if graph is None or source is None:
        return ValidationCheck(
            "relations", False, error or "", "fix the relations file (docs/relations.md)"
        )
    detail = (
        f"{len(graph.certain)} certain, {len(graph.possible)} possible between library entries "
        "(citeloom inspect --relations)"
    )
    if graph.cycles:
        return ValidationCheck(
            "relations",
            False,
            f"{len(graph.cycles)} cycle(s) of relations, not applied: "
            + "; ".join(source.problems()),
            "remove or correct one relation of each cycle in the relations file (a paper "
            "cannot be superseded by, nor be the erratum, reply or retraction notice of, a "
            "paper that comes after it)",
        )
    if problems := source.problems():
        return ValidationCheck(
            "relations",
            True,
            f"{detail}; {len(problems)} declared relation(s) cannot apply: {problems[0]}",
            "fix the citekey in the relations file, or remove the relation",
            warning=True,
        )
    return ValidationCheck("relations", True, detail)


def problem_checks(problems: Sequence[LibraryProblem]) -> list[ValidationCheck]:
    """One check per problem of the library's citation keys: a key several entries claim
    fails (their passages cannot be cited until it is fixed), the others warn."""
    return [
        ValidationCheck(
            "citation keys",
            not problem.fails,
            problem.detail,
            problem.fix,
            int(ExitCode.USAGE),
            warning=not problem.fails,
        )
        for problem in problems
    ]


def _library_checks(library: LibraryAudit) -> list[ValidationCheck]:
    """A Zotero library read beside a references file: entries the two describe
    differently."""
    checks = []
    if differ := library.disagreements():
        checks.append(
            ValidationCheck(
                "library agreement",
                True,
                f"{len(differ)} entries differ between Zotero and the references file: "
                + "; ".join(differ[:5]),
                "export the references file again from this Zotero library, or drop "
                "references (Zotero is read directly)",
                warning=True,
            )
        )
    return checks


def validate_project(project: str, parts: ProjectComponents) -> list[ValidationCheck]:
    checks: list[ValidationCheck] = list(parts.extra_checks)

    resolver, error = _attempt(parts.metadata)
    if resolver is not None:
        refs, error = _attempt(resolver.references)
    if error:
        checks.append(
            ValidationCheck("references", False, error, "fix the references file or its path")
        )
    elif not refs:
        checks.append(
            ValidationCheck(
                "references",
                True,
                "the references file has no entries: no document can be matched to a "
                "citekey, every passage will be labelled [no reference match, p. N]",
                "export your Zotero library into it with Better BibTeX (CSL-JSON or BibTeX)",
                warning=True,
            )
        )
    else:
        source = resolver.format_name
        checks.append(ValidationCheck("references", True, f"{len(refs)} {source} entries"))
        if unresolvable := [r for r in refs if r.entry_id and r.entry_id != r.citekey]:
            first = unresolvable[0]
            checks.append(
                ValidationCheck(
                    "citation keys",
                    True,
                    f"{len(unresolvable)} of {len(refs)} entries have an id that is not their "
                    f"citation key (e.g. id '{first.entry_id}' for {first.citekey}): pandoc "
                    "resolves [@key] by id, so the citations citeloom prints would not resolve",
                    "export with Better BibTeX's 'Better CSL JSON' format, which writes the "
                    "citation key as the id",
                    warning=True,
                )
            )

    if resolver is not None and not error:
        problems, _ = _attempt(resolver.problems)  # read with the references just above
        checks += problem_checks(problems or [])
    if parts.relations is not None and not error:
        checks.append(relations_check(parts.relations))
    if resolver is not None and not error and isinstance(resolver, LibraryAudit):
        checks += _library_checks(resolver)

    embedder, error = _attempt(parts.embedder)
    if embedder is None:
        checks.append(
            ValidationCheck(
                "embedding model",
                False,
                error or "",
                "follow the message; citeloom validate lists the models available here",
            )
        )
    else:
        checks.append(
            ValidationCheck(
                "embedding model",
                True,
                f"{embedder.model_id} loads offline ({embedder.dimensions} dimensions)",
            )
        )
        if language := languages_check(project, parts.embed_model, parts.languages):
            checks.append(language)
        chunker, error = _attempt(lambda: parts.chunker(embedder))
        if chunker is None:
            checks.append(ValidationCheck("chunking tokenizer", False, error or "", None))
        elif chunker.tokenizer_id == embedder.tokenizer_id:
            checks.append(
                ValidationCheck("chunking tokenizer", True, "same tokenizer as the embedder")
            )
        else:
            checks.append(
                ValidationCheck(
                    "chunking tokenizer",
                    False,
                    f"chunker counts with {chunker.tokenizer_id}, embedder uses "
                    f"{embedder.tokenizer_id}",
                    "use the embedder's tokenizer for chunking",
                )
            )
        window = chunk_token_limit(embedder.max_tokens)
        if parts.max_tokens <= window:
            checks.append(
                ValidationCheck(
                    "chunk size", True, f"max_tokens {parts.max_tokens} fits the window {window}"
                )
            )
        else:
            checks.append(
                ValidationCheck(
                    "chunk size",
                    False,
                    f"max_tokens {parts.max_tokens} exceeds the model window of {window} word "
                    "pieces (plus [CLS] and [SEP]): the tail of every long chunk would be lost",
                    f"set [chunking] max_tokens = {window} or less",
                )
            )

    index, error = _attempt(parts.index)
    info = None
    foreign: CollectionOwnerMismatch | None = None
    documents: list[DocumentSummary] = []
    staged: list[str] = []
    if index is not None:
        with index:
            info, error = _attempt(lambda: index.collection_info(parts.collection))
            if info is not None and error is None:
                foreign, error = _attempt(lambda: _foreign(index, parts.collection, project))
            if info is not None and error is None:
                documents, error = _attempt(lambda: index.documents(parts.collection, project))
            if error is None:
                staged, error = _attempt(lambda: leftovers(index, parts.collection, parts.others))
    if error:
        checks.append(
            ValidationCheck(
                "index",
                False,
                error,
                "a server: start it or fix [qdrant] url; the embedded engine: make [paths] "
                "index_dir a folder you can write to, and let no other citeloom process hold "
                "the project",
                int(ExitCode.INDEX_UNAVAILABLE),
            )
        )
        return checks
    checks.append(ValidationCheck("index", True, "reachable"))
    owner = owner_check(project, parts.collection, info, foreign)
    if owner is not None:
        checks.append(owner)
        if not owner.ok:  # what the collection holds is another project's business
            return checks
    if info is None:
        checks.append(
            ValidationCheck(
                "collection model", True, f"collection '{parts.collection}' not created yet"
            )
        )
    elif info.embed_model == parts.embed_model:
        checks.append(
            ValidationCheck(
                "collection model",
                True,
                f"'{parts.collection}' holds {info.points} points of {info.embed_model}",
            )
        )
    else:
        checks.append(
            ValidationCheck(
                "collection model",
                False,
                f"'{parts.collection}' holds vectors of {info.embed_model}, config says "
                f"{parts.embed_model}",
                f'set embedding_model = "{info.embed_model}" or use a new collection',
                int(ExitCode.MODEL_MISMATCH),
            )
        )
    if info is not None and not same_languages(info.languages, parts.languages):
        checks.append(
            ValidationCheck(
                "collection languages",
                False,
                f"'{parts.collection}' holds BM25 terms for {shown(info.languages)}, config "
                f"says {shown(parts.languages)}",
                f"citeloom reindex --project {project} (without --embedding-model: it rebuilds "
                f"the BM25 vectors for {shown(parts.languages)} without re-embedding), or set "
                f"languages = {_toml_list(info.languages)}",
                int(ExitCode.MODEL_MISMATCH),
            )
        )
    if documents:
        checks.append(documents_check(project, documents))
    if staged:
        checks.append(leftovers_check(project, staged))
    if labels := page_labels_check(documents):
        checks.append(labels)
    return checks


def _foreign(index: Index, collection: str, project: str) -> CollectionOwnerMismatch | None:
    """What the project's commands are refused with when its collection is another's."""
    try:
        index.check_owner(collection, project)
    except CollectionOwnerMismatch as error:
        return error
    return None


def owner_check(
    project: str,
    collection: str,
    info: CollectionInfo | None,
    foreign: CollectionOwnerMismatch | None,
) -> ValidationCheck | None:
    """Whether the collection is this project's: another config may name the same index and
    collection under another project name (None: no collection yet)."""
    if info is None:
        return None
    if foreign is not None:
        return ValidationCheck(
            "collection project",
            False,
            f"'{collection}' belongs to project '{foreign.owner}', which made it; this config "
            f"calls its project '{project}', and is refused it",
            f"give project '{project}' a collection of its own, or, if '{foreign.owner}' was "
            f"renamed to '{project}' on purpose: citeloom rename-project {foreign.owner} "
            f"{project}",
            int(ExitCode.MODEL_MISMATCH),
        )
    if info.owner is None:
        return ValidationCheck(
            "collection project",
            True,
            f"'{collection}' records no project yet (made before collections recorded one); "
            f"the next ingest, import or note records '{project}'",
        )
    return ValidationCheck("collection project", True, f"'{collection}' belongs to '{project}'")


def languages_check(project: str, model: str, languages: Sequence[str]) -> ValidationCheck | None:
    """What a project beyond English gets: BM25 stems its languages, and the dense model may
    only read English, leaving such queries to their words (None for English alone)."""
    if tuple(languages) == DEFAULT_LANGUAGES:
        return None
    stems = f"BM25 stems {spoken(languages)} words and drops their stop words"
    if reads_languages(model, languages):
        return ValidationCheck("languages", True, f"{stems}; {model} is multilingual")
    others = spoken([name for name in languages if name != "english"])
    return ValidationCheck(
        "languages",
        True,
        f"{stems}. {model} was trained on English: a query in {others} finds its passages by "
        "their words (BM25) only, its vector matching them little",
        f"for dense search in {others} too, bring a multilingual FastEmbed model: "
        f"citeloom reindex --project {project} --embedding-model {MULTILINGUAL_MODEL} "
        f'--allow-download, then set embedding_model = "{MULTILINGUAL_MODEL}"',
        warning=True,
    )


def _toml_list(names: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{name}"' for name in names) + "]"


def documents_check(project: str, documents: Sequence[DocumentSummary]) -> ValidationCheck:
    """Every stored document whole: one a killed run left in part answers queries with some
    of its passages missing, and nothing else would say so."""
    broken = [d for d in documents if not d.complete]
    if not broken:
        return ValidationCheck("documents", True, f"{len(documents)} stored completely")
    shown = "; ".join(f"{d.path} ({d.chunks} of {d.chunk_total} chunks)" for d in broken[:3])
    more = f" and {len(broken) - 3} more" if len(broken) > 3 else ""
    return ValidationCheck(
        "documents",
        False,
        f"{len(broken)} of {len(documents)} stored only in part (a run was killed while "
        f"writing them): {shown}{more}",
        repair(project, broken),
        int(ExitCode.DOCUMENTS_FAILED),
    )


def leftovers_check(project: str, staged: Sequence[str]) -> ValidationCheck:
    """Staging collections of killed imports or reindexes: never used, but they hold disk."""
    return ValidationCheck(
        "leftovers",
        True,
        f"{', '.join(staged)}: left by an interrupted import or reindex (or one running now); "
        "the project does not use them",
        "the project's next reindex (or import, once it is empty) removes them first; or "
        f"citeloom drop --project {project} removes them with the project's collection",
        warning=True,
    )


def page_labels_check(documents: Sequence[DocumentSummary]) -> ValidationCheck | None:
    """Which rule gave the stored papers their printed page labels; a warning for those
    stored before labels existed (they cite PDF pages until the next ingest labels them), and
    for those whose library range and printed numbers disagree, naming both."""
    papers = [d for d in documents if d.kind == "paper" and d.page_count]
    if not papers:
        return None
    rules = Counter(d.labels.source if d.labels else "none yet" for d in papers)
    shown = ", ".join(f"{n} {rule}" for rule, n in sorted(rules.items()))
    plural = "" if len(papers) == 1 else "s"
    detail = f"{len(papers)} paged document{plural} labelled by: {shown}"
    if rules["none yet"]:
        return ValidationCheck(
            "page labels",
            True,
            f"{detail}; those without labels cite PDF pages",
            "run citeloom ingest on the project's folders again: it labels them without "
            "re-embedding",
            warning=True,
        )
    disagree = [
        f"{d.citekey or d.path}: {d.labels.disagree}"
        for d in papers
        if d.labels and d.labels.disagree and not d.labels.disagree.chosen
    ]
    if disagree:
        return ValidationCheck(
            "page labels",
            True,
            f"{detail}; {len(disagree)} where the library's range and the PDF's numbers "
            f"disagree: {'; '.join(disagree[:5])}",
            "check that each entry's page range is the version you cite, or choose the "
            "printed pages with a 'citeloom-pages: printed' line in the entry's Extra field "
            "(note in CSL-JSON and BibTeX); the next ingest relabels it",
            warning=True,
        )
    return ValidationCheck("page labels", True, detail)
