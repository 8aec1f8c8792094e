"""The JSON citeloom speaks: request and response models shared by the HTTP API and the CLI.

``citeloom query|answer|check --json`` print these models and ``citeloom serve`` returns
them, so a script can move from one to the other without changing a key. Responses are
built from the services' ``to_json`` (one place writes each report) and checked here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is named, not ignored

    project: str = Field(min_length=1, description='A [project."ID"] of the config.')


class QueryRequest(_Request):
    query: str = Field(min_length=1, description='Your words; "quoted phrases" must occur.')
    top_k: int | None = Field(
        None,
        ge=1,
        le=MAX_TOP_K,
        description=f"Passages at most (default {DEFAULT_TOP_K}; with budget, as many as fit).",
    )
    per_doc: int | None = Field(None, ge=0, description="0: no limit; unset: [query] per_doc")
    citekeys: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    year_from: int | None = None
    year_to: int | None = None
    section: str | None = None
    budget: int | None = Field(None, ge=1)


class AnswerRequest(_Request):
    question: str = Field(min_length=1)


class CheckRequest(_Request):
    draft: str = Field(min_length=1, description="The draft's text (Markdown or LaTeX).")
    name: str = Field("draft", description="Shown in the report, e.g. the file name.")
    format: Literal["auto", "markdown", "latex"] = "auto"


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def dump(self) -> dict[str, Any]:
        """As the CLI prints it: optional keys only when the report had them."""
        return self.model_dump(mode="json", exclude_unset=True)


class PassageOut(_Response):
    rank: int
    score: float
    citekey: str | None
    title: str | None
    authors: list[str]
    year: int | None
    doi: str | None
    url: str | None
    page_start: int | None = Field(description="PDF page (1-based), for opening the file.")
    page_end: int | None
    page_label_start: str | None = Field(
        description="The printed page a reader finds in the journal (what a citation names)."
    )
    page_label_end: str | None
    page_label_source: str | None = Field(
        description="Where the labels came from: pdf-labels, printed, library or pdf-page."
    )
    section: str | None
    section_path: list[str]
    text: str
    source: str
    chunk_id: str
    kind: Literal["paper", "note"] = Field(
        description="note: stored beside the paper (MCP store_chunks), never the paper's words."
    )
    label: str = Field(description="The pandoc citation: [@key, p. 273].")
    trimmed: bool | None = None


class QueryResponse(_Response):
    query: str
    project: str
    answerable: bool
    confidence: float
    results: list[PassageOut]
    phrases: list[str] | None = None
    note: str | None = None


class CitationOut(_Response):
    citekey: str | None
    page: int | None = Field(description="PDF page (1-based) the quote is on.")
    page_label: str | None = Field(description="The printed page the quote is on.")
    label: str = Field(description="The pandoc citation: [@key, p. 273].")
    kind: Literal["paper", "note"]
    section_path: list[str]
    quote: str = Field(description="Exactly as stored.")
    chunk_id: str
    verified: bool = Field(description="Found verbatim on this page of the stored text.")


class AnswerResponse(_Response):
    question: str
    project: str
    answer: str | None
    citations: list[CitationOut]
    confidence: float
    fallback: bool = Field(description='True: "No answer found in the library." See leads.')
    leads: list[PassageOut] | None = None
    reason: str | None = Field(None, description="Why there is no answer (fallback only).")
    absent: list[str] | None = Field(
        None, description="Names in the question that no document of the project mentions."
    )
    note: str | None = None


class EvidenceOut(CitationOut):
    score: float


class DifferenceOut(_Response):
    kind: Literal["number", "unit", "negation", "direction", "term"]
    draft: str = Field(description="What the draft says: '12 sites'.")
    page: str = Field(description="What the page says: '8 sites'; empty when not stated.")


class CitationCheckOut(_Response):
    citekey: str
    pages: list[str] = Field(description="The printed pages the citation names: ['273'].")
    line: int
    column: int
    sentence: str
    citation: str
    locator: str
    verdict: Literal[
        "supported",
        "mismatch",
        "other-page",
        "no-page",
        "no-such-page",
        "not-found",
        "unknown-key",
        "not-ingested",
    ]
    message: str = Field(description="What is wrong and what to do; empty when supported.")
    suggested_page: str | None = Field(description="The printed page to cite instead.")
    suggested_pdf_page: int | None
    differences: list[DifferenceOut]
    printed_range: str | None = Field(description="no-such-page: the paper's printed pages.")
    evidence: EvidenceOut | None
    elsewhere: list[EvidenceOut]


class CheckResponse(_Response):
    draft: str
    project: str
    ok: bool = Field(description="Every citation supported (the CLI exits 0).")
    counts: dict[str, int]
    citations: list[CitationCheckOut]


class ProjectOut(_Response):
    """One project, as MCP list_projects gives it: both are ``ProjectSummary.to_json``
    (``services.inspection``), so the two doors cannot name a field differently."""

    project: str = Field(description='The project id: a [project."ID"] of the config.')
    collection: str = Field(description="The Qdrant collection holding its chunks.")
    embedding_model: str = Field(description="The embedding model the config names.")
    stored_model: str | None = Field(
        description="The model its stored vectors were made with; null: nothing ingested yet."
    )
    documents: int = Field(description="Documents stored (papers and notes).")
    chunks: int = Field(description="Chunks stored across those documents.")


class ProjectsResponse(_Response):
    projects: list[ProjectOut]


class HealthResponse(_Response):
    status: Literal["ok", "degraded"]
    models_loaded: list[str]
    index_reachable: bool
    index_detail: str
    versions: dict[str, str]


class ErrorResponse(_Response):
    error: str
    field: str | None = None
