"""The examples ``/docs`` shows for each model of the HTTP API, from the bundled example
project (``examples/``): what a request and its answer look like. ``http/docs.py`` puts them
into the OpenAPI document by model name; the models (``services/usecases/``) carry none."""

from __future__ import annotations

from typing import Any

from citeloom.domain.verdicts import DEFAULT_FAIL_ON, VERDICTS

ARDEL_TITLE = "Carbon Burial in Restored Tidal Marshes: A Five-Year Sediment Core Study"
ARDEL_AUTHORS = ["Ardel, Ines", "Reyes, Tomas", "Halvorsen, Sigrid"]
QUESTION = "how fast do restored salt marshes accrete sediment"
ACCRETION = (
    "Restored sites accreted a mean of 6.8 millimetres of sediment per year over the five "
    "years, against 2.4 millimetres per year in the reference marshes."
)
CLAIM = "Restored sites accreted 9.1 millimetres of sediment per year [@ardel2023marsh, p. 118]."
CHUNK_ID = "d7a4bc58-90fb-5627-8b1c-693dcffb5d96"
RESULTS_PATH = ["3 Results", "3.1 Accretion rates"]


NO_RELATIONS: dict[str, Any] = {
    "versions": [],
    "superseded_by": None,
    "retracted": False,
    "conflicts_with": [],
    "related": [],
    "banner": None,
}

PASSAGE: dict[str, Any] = {
    "rank": 1,
    "score": 0.676986,
    "citekey": "ardel2023marsh",
    "title": ARDEL_TITLE,
    "authors": ARDEL_AUTHORS,
    "year": 2023,
    "doi": "10.5555/clx.2023.0417",
    "url": None,
    "page_start": 2,
    "page_end": 2,
    "page_label_start": "118",
    "page_label_end": "118",
    "page_label_source": "printed",
    "section": "3.1 Accretion rates",
    "section_path": RESULTS_PATH,
    "text": ACCRETION,
    "source": "/home/ines/papers/ardel2023_restored_marshes.pdf",
    "chunk_id": CHUNK_ID,
    "doc_id": "0c5e2a4f-3b1d-5e8a-9f6c-7d2b1a0e4c93",
    "kind": "paper",
    "label": "[@ardel2023marsh, p. 118]",
    "zotero": None,
    **NO_RELATIONS,
}

CITATION: dict[str, Any] = {
    "citekey": "ardel2023marsh",
    "page": 2,
    "page_label": "118",
    "label": "[@ardel2023marsh, p. 118]",
    "kind": "paper",
    "section_path": RESULTS_PATH,
    "quote": ACCRETION,
    "chunk_id": CHUNK_ID,
    "source": PASSAGE["source"],
    "verified": True,
    "zotero": None,
    **NO_RELATIONS,
}

CHECKED: dict[str, Any] = {
    "citekey": "ardel2023marsh",
    "pages": ["118"],
    "line": 1,
    "column": 62,
    "sentence": "Restored sites accreted 9.1 millimetres of sediment per year.",
    "citation": "[@ardel2023marsh, p. 118]",
    "locator": "p. 118",
    "verdict": "mismatch",
    "message": "draft: 9.1 millimetres; p. 118: 6.8 millimetres",
    "suggested_page": None,
    "suggested_pdf_page": None,
    "differences": [{"kind": "number", "draft": "9.1 millimetres", "page": "6.8 millimetres"}],
    "printed_range": None,
    "evidence": {**CITATION, "score": 1.0},
    "elsewhere": [],
    "notes": [],
    **NO_RELATIONS,
}

PROJECT: dict[str, Any] = {
    "project": "example",
    "collection": "proj-example",
    "embedding_model": "fastembed/all-MiniLM-L6-v2-fp32",
    "stored_model": "fastembed/all-MiniLM-L6-v2-fp32",
    "documents": 3,
    "chunks": 25,
}


# each model /docs shows, by name: its examples, the first shown
EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "QueryRequest": [
        {"project": "example", "query": QUESTION},
        {
            "project": "example",
            "query": 'sediment accretion "reference marshes"',
            "top_k": 3,
            "per_doc": 0,
            "citekeys": ["ardel2023marsh"],
            "year_from": 2020,
            "section": "results",
        },
    ],
    "AnswerRequest": [
        {"project": "example", "question": QUESTION},
        {"project": "example", "question": QUESTION, "within": {"year_from": 2020}},
    ],
    "Filters": [{"year_from": 2020, "tags": ["wetlands"], "section": "results"}],
    "PassageRequest": [{"project": "example", "chunk_id": CHUNK_ID, "context": 1}],
    "PassageContextResponse": [
        {
            "project": "example",
            "passage": {**PASSAGE, "rank": 0, "score": 0.0},
            "before": [],
            "after": [],
        }
    ],
    "CheckRequest": [
        {"project": "example", "draft": CLAIM, "name": "chapter2.md", "format": "markdown"}
    ],
    "VersionOut": [{"citekey": "ardel2023marsh", "version_of_record": True}],
    "ConflictOut": [
        {"citekey": "lindqvist2021quiet", "reason": "a replication found no such effect"}
    ],
    "RelatedOut": [{"citekey": "ardel2024erratum", "relation": "has_erratum"}],
    "RelationFlags": [NO_RELATIONS],
    "ZoteroOut": [
        {
            "item_key": "ARDL2023",
            "attachment_key": "K7QF3MZA",
            "library": "library",
            "open_pdf": "zotero://open-pdf/library/items/K7QF3MZA?page=2",
            "select": "zotero://select/library/items/ARDL2023",
        }
    ],
    "PassageOut": [PASSAGE],
    "QueryResponse": [
        {
            "query": QUESTION,
            "project": "example",
            "answerable": True,
            "confidence": 0.949,
            "results": [PASSAGE],
        }
    ],
    "CitationOut": [CITATION],
    "AnswerResponse": [
        {
            "question": QUESTION,
            "project": "example",
            "answer": ACCRETION,
            "citations": [CITATION],
            "confidence": 0.794,
            "fallback": False,
        },
        {
            "question": "how fast do mangrove forests in Vietnam accrete sediment",
            "project": "example",
            "answer": None,
            "citations": [],
            "confidence": 0.0,
            "fallback": True,
            "leads": [PASSAGE],
            "reason": "Nothing in this library mentions Vietnam.",
            "absent": ["Vietnam"],
        },
    ],
    "EvidenceOut": [{**CITATION, "score": 1.0}],
    "DifferenceOut": [{"kind": "number", "draft": "9.1 millimetres", "page": "6.8 millimetres"}],
    "CheckNoteOut": [
        {
            "severity": "note",
            "message": "@ardel2022preprint is superseded by @ardel2023marsh (the version of "
            "record): cite @ardel2023marsh",
            "citekey": "ardel2023marsh",
        }
    ],
    "CitationCheckOut": [CHECKED],
    "CheckResponse": [
        {
            "draft": "chapter2.md",
            "project": "example",
            "ok": False,
            "fail_on": [v for v in VERDICTS if v in DEFAULT_FAIL_ON],
            "counts": {verdict: int(verdict == "mismatch") for verdict in VERDICTS},
            "citations": [CHECKED],
        }
    ],
    "ProjectOut": [PROJECT],
    "ProjectsResponse": [{"projects": [PROJECT]}],
    "HealthResponse": [
        {
            "status": "ok",
            "models_loaded": ["fastembed/all-MiniLM-L6-v2-fp32"],
            "index_reachable": True,
            "index_detail": "index reachable",
            "versions": {"citeloom": "0.1.0", "python": "3.11.2", "fastapi": "0.165.0"},
        }
    ],
    "ErrorResponse": [
        {"error": "question: Field required", "field": "question"},
        {
            "error": "citeloom.toml: unknown project 'nope' (configured: example). Add a "
            '[project."nope"] table or pick a configured one.',
            "field": "project",
        },
    ],
}
