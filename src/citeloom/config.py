"""Typed configuration: ``citeloom.toml`` validated by pydantic-settings.

Precedence: environment (``CITELOOM_SECTION__KEY``, e.g. ``CITELOOM_QDRANT__URL``) over the
file over defaults. Relative paths resolve against the config file's folder, so a project
folder works from any working directory. Unknown keys and bad values fail with the key's name.
The Qdrant API key is read from ``CITELOOM_QDRANT_API_KEY`` only and never stored or logged.

The environment is read here, once, when the settings are made: citeloom's own keys, and the
variables of other tools' caches it honours (``Environment``); adapters are given the values.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from citeloom.adapters.relations_memo import RelationsMemo
from citeloom.domain.alignment import DEFAULT_THRESHOLDS, Thresholds
from citeloom.domain.errors import ConfigError, UnknownProject
from citeloom.domain.fusion import DEFAULT_FUSION
from citeloom.domain.languages import BM25_LANGUAGES, DEFAULT_LANGUAGES
from citeloom.domain.verdicts import DEFAULT_FAIL_ON, parse_verdicts
from citeloom.environment import API_KEY_ENV

DEFAULT_CONFIG = Path("citeloom.toml")
DEFAULT_EMBED_MODEL = "fastembed/all-MiniLM-L6-v2-fp32"  # ADR 0012
_COLLECTION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PathsConfig(_Section):
    raw_dir: Path = Path("assets/raw")
    audit_dir: Path = Path("var/audit")
    index_dir: Path = Path("var/qdrant")
    cache_dir: Path = Path("var/cache")


class QdrantConfig(_Section):
    url: str = ""
    timeout_ms: int = Field(15000, gt=0)
    # embedded engine: how long to wait for another citeloom process holding the project
    busy_timeout_s: float = Field(30.0, ge=0)
    # A server or cluster only, applied when a collection is created (unset: the server's
    # default). Shards spread a collection over the nodes; each shard is held by
    # replication_factor nodes, and a write waits for write_consistency_factor of them.
    shard_number: int | None = Field(None, ge=1)
    replication_factor: int | None = Field(None, ge=1)
    write_consistency_factor: int | None = Field(None, ge=1)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if value and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("must be empty (embedded Qdrant Edge) or an http(s):// URL")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _consistency_within_replicas(self) -> QdrantConfig:
        if self.write_consistency_factor is not None and self.write_consistency_factor > (
            self.replication_factor or 1
        ):
            raise ValueError(
                "write_consistency_factor must be at most replication_factor (a write cannot "
                "wait for more copies than there are)"
            )
        return self


class ChunkingConfig(_Section):
    max_tokens: int = Field(254, ge=16)
    overlap_tokens: int = Field(40, ge=0)
    heading_context: int = Field(2, ge=0, le=8)

    @model_validator(mode="after")
    def _overlap_below_half(self) -> ChunkingConfig:
        if self.overlap_tokens * 2 > self.max_tokens:
            raise ValueError("overlap_tokens must be at most half of max_tokens")
        return self


class ConversionConfig(_Section):
    ocr: Literal["auto", "always", "never"] = "auto"
    ocr_languages: list[str] = Field(default_factory=lambda: ["eng", "deu"])
    timeout_s: float = Field(600.0, gt=0)
    max_pages: int = Field(2000, gt=0)
    # "auto": Docling's trained layout model when its weights are on this machine, else the
    # weight-free rules; "rules" or "trained" to force one.
    layout: Literal["auto", "rules", "trained"] = "auto"
    artifacts_path: Path | None = None

    @field_validator("ocr_languages")
    @classmethod
    def _tesseract_codes(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not re.fullmatch(r"[a-z]{3}(_[a-z]+)?", v)]
        if bad or not value:
            raise ValueError('use Tesseract language codes such as "eng", "deu", "fra"')
        return value


class EmbeddingConfig(_Section):
    # The folder of a model that is neither built in nor in FastEmbed's cache: its ONNX file
    # and tokenizer files (any project whose embedding_model is not built in uses it).
    model_path: Path | None = None
    # FastEmbed's cache folder; unset: cache_dir/fastembed, then FASTEMBED_CACHE_PATH or
    # FastEmbed's default under the temporary folder. Downloads (--allow-download) go first.
    fastembed_cache: Path | None = None
    # How an ingest computes the fp32 MiniLM's document vectors: "auto" in bfloat16 where the
    # CPU multiplies it natively (AMX or AVX-512 BF16: about a third of the CPU, cosine to fp32
    # at least 0.9998; ADR 0031), else in fp32; "fp32" always in fp32. Queries are always fp32.
    document_precision: Literal["auto", "fp32"] = "auto"


class QueryConfig(_Section):
    candidates: int = Field(50, ge=5, le=1000)  # per signal, before fusion
    per_doc: int = Field(3, ge=0)  # results from one document (0: no limit)
    min_confidence: float = Field(0.5, ge=0.0, le=1.0)  # below: "no confident answer"


class McpConfig(_Section):
    """The MCP server (``citeloom mcp``), and its tools at /mcp/ of ``citeloom serve``."""

    timeout_s: float = Field(15.0, gt=0, le=3600)  # per tool call; then TIMEOUT, nothing written
    max_chars_per_chunk: int = Field(800, ge=40, le=100_000)  # render_text of each result


class ServeConfig(_Section):
    """The HTTP API (``citeloom serve``); its /mcp/ tools keep [mcp] timeout_s."""

    # per request; then 503 with Retry-After, nothing reported (a check stops between citations)
    timeout_s: float = Field(60.0, gt=0, le=3600)
    # a larger request body is refused with 413 before it is read as JSON
    max_body_bytes: int = Field(5_000_000, ge=1024, le=1_000_000_000)


class AnswerConfig(_Section):
    # below: "No answer found in the library." with the best passages as leads
    min_confidence: float = Field(0.5, ge=0.0, le=1.0)
    passages: int = Field(5, ge=1, le=50)  # top passages whose sentences compete


class CheckConfig(_Section):
    # The verdicts that make `citeloom check` exit 1 (--fail-on overrides it); by default
    # those measured precise enough to act on (docs/answers-and-checks.md).
    fail_on: list[str] = Field(
        default_factory=lambda: [str(v) for v in sorted(DEFAULT_FAIL_ON)],
        description="verdicts that fail a check",
    )
    # A sentence (or two or three in a row) states the claim when it holds this weight share
    # of the claim's terms, or a close paraphrase (similarity >= paraphrase, with at least
    # paraphrase_coverage of the terms); its numbers, names and negations must be there too.
    # Chosen by benchmarks/check_claims.py on the tuning halves (docs/adr/0018, 0025).
    coverage: float = Field(DEFAULT_THRESHOLDS.coverage, ge=0.0, le=1.0)
    paraphrase: float = Field(DEFAULT_THRESHOLDS.paraphrase, ge=0.0, le=1.0)
    paraphrase_coverage: float = Field(DEFAULT_THRESHOLDS.paraphrase_coverage, ge=0.0, le=1.0)
    # ... or one stating every number of the claim (one with two significant digits or more)
    # and holding at least numbers_coverage of its terms
    numbers_coverage: float = Field(DEFAULT_THRESHOLDS.numbers_coverage, ge=0.0, le=1.01)
    # the paper's topic (the stems on topic_share of its pages or more) is context a cited
    # page need not repeat; above 1: none
    topic_share: float = Field(0.5, ge=0.0, le=1.01)
    # alignment at which the page discusses the claim (unconfirmed rather than not-found),
    # and at which a contradiction is a mismatch
    discuss: float = Field(DEFAULT_THRESHOLDS.discuss, ge=0.0, le=1.0)
    mismatch: float = Field(DEFAULT_THRESHOLDS.mismatch, ge=0.0, le=1.0)

    @field_validator("fail_on")
    @classmethod
    def _known_verdicts(cls, value: list[str]) -> list[str]:
        return sorted(parse_verdicts(value))

    def thresholds(self) -> Thresholds:
        return replace(
            DEFAULT_THRESHOLDS,
            coverage=self.coverage,
            paraphrase=self.paraphrase,
            paraphrase_coverage=self.paraphrase_coverage,
            numbers_coverage=self.numbers_coverage,
            discuss=self.discuss,
            mismatch=self.mismatch,
        )


class MatchingConfig(_Section):
    title_threshold: float = Field(0.8, ge=0.5, le=1.0)  # title similarity to accept a match
    title_margin: float = Field(0.05, ge=0.0, le=0.5)  # lead over the runner-up


class ProjectConfig(_Section):
    collection: str
    # the library: a Better BibTeX export (CSL-JSON, BibLaTeX or BibTeX, told by the file), a
    # Zotero data directory, or both (Zotero's attachments are then matched exactly, and
    # validate reports entries the two disagree on). Written ``references`` in the TOML;
    # ``references_json``, its first name, is read too.
    references_json: Path | None = Field(
        None, validation_alias=AliasChoices("references", "references_json")
    )
    zotero: Path | None = None
    # Zotero's "base directory" for linked files stored relative to it (attachments:...)
    zotero_base_dir: Path | None = None
    # watch: remove stored documents whose files are gone (as ingest --prune does)
    prune: bool = False
    # Optional: versions, supersession, retractions and conflicts the library cannot say
    # (TOML; docs/relations.md). Relations are also inferred from the references file.
    relations: Path | None = None
    embedding_model: str = DEFAULT_EMBED_MODEL
    hybrid_enabled: bool = True
    fusion: Literal["rrf", "dbsf", "linear"] = DEFAULT_FUSION  # type: ignore[assignment]
    # (dense, BM25); unset: the measured default of the chosen fusion (domain.fusion)
    fusion_weights: tuple[float, float] | None = None
    rrf_k: int = Field(60, ge=1)
    # what BM25 stems and drops stop words for; the collection remembers them (see
    # docs/languages.md): changing them needs `citeloom reindex`, which does not re-embed
    languages: list[str] = Field(default_factory=lambda: list(DEFAULT_LANGUAGES))

    @field_validator("languages")
    @classmethod
    def _bm25_languages(cls, value: list[str]) -> list[str]:
        names = [v.strip().lower() for v in value]
        if not names:
            raise ValueError('name at least one language, e.g. ["english"]')
        if unknown := [v for v in names if v not in BM25_LANGUAGES]:
            raise ValueError(
                f"unknown language {unknown[0]!r}; BM25 stems and drops stop words for: "
                f"{', '.join(BM25_LANGUAGES)}"
            )
        if len(set(names)) < len(names):
            raise ValueError("a language is named twice")
        return names

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        if not _COLLECTION_NAME.match(value):
            raise ValueError("use letters, digits, '-', '_' or '.' (it names a folder)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _one_references_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "references" in data and "references_json" in data:
            raise ValueError(
                "references and references_json name the same file: keep references only"
            )
        return data

    @model_validator(mode="after")
    def _has_a_library(self) -> ProjectConfig:
        if self.references_json is None and self.zotero is None:
            raise ValueError(
                'give the library: references = "library.bib" (a Better BibTeX export: '
                'BibLaTeX, BibTeX or CSL-JSON) or zotero = "~/Zotero" (Zotero\'s data '
                "directory), or both"
            )
        return self


class Environment(BaseSettings):
    """The environment variables citeloom honours besides its settings' own keys: the Qdrant
    API key, and where this user's and other tools' caches are. An empty variable is unset."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    citeloom_qdrant_api_key: SecretStr | None = None
    citeloom_model_cache: str = ""
    xdg_cache_home: str = ""
    fastembed_cache_path: str = ""
    hf_home: str = ""
    hf_hub_cache: str = ""

    @property
    def qdrant_api_key(self) -> str | None:
        key = self.citeloom_qdrant_api_key
        return (key.get_secret_value() or None) if key is not None else None

    @property
    def model_cache(self) -> Path:
        """This user's model cache, where the fp32 model is exported once for every project:
        ``CITELOOM_MODEL_CACHE``, else ``$XDG_CACHE_HOME/citeloom``, else ``~/.cache/citeloom``."""
        if self.citeloom_model_cache:
            return Path(self.citeloom_model_cache).expanduser()
        return Path(self.xdg_cache_home or Path.home() / ".cache") / "citeloom"

    @property
    def fastembed_home(self) -> Path:
        """FastEmbed's own cache: ``FASTEMBED_CACHE_PATH``, else its folder under the system's
        temporary folder."""
        return Path(self.fastembed_cache_path or Path(tempfile.gettempdir()) / "fastembed_cache")

    @property
    def hf_hub(self) -> Path:
        """The Hugging Face hub cache, where Docling's trained layout weights may be:
        ``HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``."""
        home = Path(self.hf_home or "~/.cache/huggingface")
        return Path(self.hf_hub_cache or home / "hub").expanduser()


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="CITELOOM_", env_nested_delimiter="__", extra="forbid"
    )

    paths: PathsConfig = Field(default_factory=PathsConfig)
    qdrant: QdrantConfig = Field(default_factory=QdrantConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    conversion: ConversionConfig = Field(default_factory=ConversionConfig)
    matching: MatchingConfig = Field(default_factory=MatchingConfig)
    query: QueryConfig = Field(default_factory=QueryConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)
    answer: AnswerConfig = Field(default_factory=AnswerConfig)
    check: CheckConfig = Field(default_factory=CheckConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    project: dict[str, ProjectConfig] = Field(default_factory=dict)

    # Where the file was read from; relative paths were resolved against its folder.
    config_path: Path | None = Field(default=None, exclude=True)
    # Read with the settings, once; copies of the settings (model_copy) share both.
    _environment: Environment = PrivateAttr(default_factory=Environment)
    _relations_memo: RelationsMemo = PrivateAttr(default_factory=RelationsMemo)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The file's values arrive as init kwargs; the environment must win over them.
        return (env_settings, init_settings)

    @model_validator(mode="after")
    def _one_collection_per_project(self) -> Settings:
        # Chunk ids do not name the project: two projects writing the same file into one
        # collection would take each other's chunks. Each project gets its own collection.
        owners: dict[str, str] = {}
        for name, project in self.project.items():
            if project.collection in owners:
                raise ValueError(
                    f"projects '{owners[project.collection]}' and '{name}' share the collection "
                    f"'{project.collection}'; give each project its own collection"
                )
            owners[project.collection] = name
        return self

    @property
    def environment(self) -> Environment:
        return self._environment

    @property
    def qdrant_api_key(self) -> str | None:
        return self._environment.qdrant_api_key

    @property
    def relations_memo(self) -> RelationsMemo:
        """The library relations this process built (``adapters.relations_memo``): the
        settings live exactly as long as the process's runtime, a command's or a server's, and
        every unit of work is given them, so they carry its one bounded memo."""
        return self._relations_memo

    def get_project(self, name: str) -> ProjectConfig:
        if name not in self.project:
            known = tuple(sorted(self.project))
            where = self.config_path or DEFAULT_CONFIG
            raise UnknownProject(
                f"{where}: unknown project '{name}' (configured: {', '.join(known) or 'none'}). "
                f'Add a [project."{name}"] table or pick a configured one.',
                name,
                known,
            )
        return self.project[name]


def _env_variables(loc: tuple[Any, ...]) -> list[str]:
    """The environment variables behind the value at ``loc``, spelled as they were set: the
    one naming it or a section holding it, else those setting keys inside it."""
    names = {name.upper(): name for name in os.environ if name.upper().startswith("CITELOOM_")}
    key = "CITELOOM_" + "__".join(str(part).upper() for part in loc)
    for end in range(len(loc), 0, -1):
        ancestor = "CITELOOM_" + "__".join(str(part).upper() for part in loc[:end])
        if ancestor in names:
            return [names[ancestor]]
    return sorted(name for upper, name in names.items() if upper.startswith(key + "__"))


def _format_errors(path: Path, error: ValidationError) -> str:
    lines, variables, from_env = [], [], 0
    for err in error.errors():
        loc = ".".join(str(part) for part in err["loc"]) or "project"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown key (check the spelling; see README 'Configuration')"
            if loc.endswith("api_key"):
                message = f"api_key is not read from files; set the {API_KEY_ENV} env variable"
        elif "input" in err and not isinstance(err["input"], dict):
            message = f"{message} (got {err['input']!r})"
        env = _env_variables(err["loc"])
        if env:
            message += f" (from the environment: {', '.join(env)})"
        variables += [name for name in env if name not in variables]
        from_env += bool(env)
        lines.append(f"  {loc}: {message}")
    return "\n".join([_blame(path, variables, all_env=from_env == len(lines)), *lines])


def _blame(path: Path, variables: list[str], all_env: bool) -> str:
    """The first line: where to look. A value the environment set is not the file's fault."""
    if not variables:
        return f"{path}: invalid configuration"
    several = len(variables) > 1
    named = f"environment variable{'s' if several else ''} {', '.join(variables)}"
    if all_env:
        it = "them" if several else "it"
        return f"{named}: invalid configuration; fix or unset {it} (set over {path})"
    return f"{path} and {named}: invalid configuration"


def _resolve(base: Path, path: Path) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else (base / path).resolve()


def load_settings(path: Path | None = None) -> Settings:
    """Read, validate and resolve a config file; every problem is a ``ConfigError``."""
    path = path or DEFAULT_CONFIG
    if not path.is_file():
        raise ConfigError(
            f"{path}: config file not found. Run `citeloom init` here to write one from your "
            "Zotero library and papers (see README 'Configuration'), or pass --config FILE."
        )
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error}). Fix the syntax there.") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read ({error}).") from error
    try:
        settings = Settings(**data)
    except ValidationError as error:
        raise ConfigError(_format_errors(path, error)) from None
    except SettingsError as error:  # a whole section from the environment that is not JSON
        field = re.search(r'field "(\w+)"', str(error))
        section = field.group(1) if field else ""
        variable = next(iter(_env_variables((section,))), f"CITELOOM_{section.upper()}")
        raise ConfigError(
            f"environment variable {variable}: not a JSON object for the [{section}] settings "
            f"({error.__cause__ or error}). Set one key as CITELOOM_{section.upper()}__KEY "
            "instead, or fix or unset it."
        ) from None
    base = path.resolve().parent
    settings.config_path = path
    for name in ("raw_dir", "audit_dir", "index_dir", "cache_dir"):
        setattr(settings.paths, name, _resolve(base, getattr(settings.paths, name)))
    if settings.conversion.artifacts_path is not None:
        settings.conversion.artifacts_path = _resolve(base, settings.conversion.artifacts_path)
    for name in ("model_path", "fastembed_cache"):
        if getattr(settings.embedding, name) is not None:
            setattr(settings.embedding, name, _resolve(base, getattr(settings.embedding, name)))
    for project in settings.project.values():
        for name in ("references_json", "zotero", "zotero_base_dir", "relations"):
            if getattr(project, name) is not None:
                setattr(project, name, _resolve(base, getattr(project, name)))
    return settings
