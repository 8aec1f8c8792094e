"""Relations between library entries: versions of one work, supersession, retractions,
corrections and replies, inferred from the library and the documents, or declared by the user.

A real library holds the same work more than once (the arXiv preprint and the journal
article, a report and the paper, a conference paper and its journal version, two editions),
and a paper beside its erratum, its reply or its retraction. Every relation names its
evidence and says how sure it is:

- ``certain``: an identifier links the entries (the same DOI or arXiv id), a notice names
  its paper ("Erratum to: <title>"), the entry says so (``RETRACTED:``, ``status``), the
  same title and authors come as a preprint, report or conference paper and as the journal
  article (or as two editions), or the user declared it. Certain relations are applied:
  results are flagged, the version of record is preferred between near-tied passages,
  ``check`` names the version to cite.
- ``possible``: titles that are merely alike (same first author, similar words), two entries
  with the same title and authors of the same kind, a DOI shared by entries whose titles
  differ. Listed by ``citeloom inspect --relations``, never applied: the user confirms one in
  the relations file (``version_of``) or silences it (``distinct``).

Pure functions of the references (and the facts ingest recorded of each document); the
title similarity is passed in, so the adapters can use rapidfuzz as matching does.

The package, by concern: ``model`` (a relation, its kinds, a document's facts), ``entries``
(what relations read of one entry: stage, title, authors), ``notices`` (patterns of notice
titles), ``inference``, ``cycles``, ``graph`` (relations applied: works, records, flags),
``ranking`` (the version of record first) and ``citing`` (what check notes about a cited
paper). Words for people about them belong to the renderers. Callers import from here.
"""

from citeloom.domain.relations.citing import CitationNote, NoteKind, citation_notes
from citeloom.domain.relations.cycles import Cycle, find_cycles, on_cycles
from citeloom.domain.relations.entries import (
    BETWEEN,
    JOURNAL,
    PREPRINT,
    SCHOLARLY,
    default_similarity,
    same_authors,
    stage,
    stage_words,
    title_key,
)
from citeloom.domain.relations.graph import (
    NO_FLAGS,
    Conflict,
    Related,
    RelationGraph,
    VersionRef,
    WorkFlags,
    relation_graph,
)
from citeloom.domain.relations.inference import (
    DOCUMENT_TITLE,
    DOCUMENT_TITLE_CERTAIN,
    INFERENCE_VERSION,
    POSSIBLE_TITLE,
    infer_relations,
)
from citeloom.domain.relations.model import (
    KINDS,
    Certainty,
    DocumentFacts,
    Origin,
    Relation,
    RelationKind,
    Similarity,
)
from citeloom.domain.relations.notices import Notice, notice_of, retracted_title
from citeloom.domain.relations.ranking import RECORD_TIE, prefer_records

__all__ = [
    "BETWEEN",
    "DOCUMENT_TITLE",
    "DOCUMENT_TITLE_CERTAIN",
    "INFERENCE_VERSION",
    "JOURNAL",
    "KINDS",
    "NO_FLAGS",
    "POSSIBLE_TITLE",
    "PREPRINT",
    "RECORD_TIE",
    "SCHOLARLY",
    "Certainty",
    "CitationNote",
    "Conflict",
    "Cycle",
    "DocumentFacts",
    "NoteKind",
    "Notice",
    "Origin",
    "Related",
    "Relation",
    "RelationGraph",
    "RelationKind",
    "Similarity",
    "VersionRef",
    "WorkFlags",
    "citation_notes",
    "default_similarity",
    "find_cycles",
    "infer_relations",
    "notice_of",
    "on_cycles",
    "prefer_records",
    "relation_graph",
    "retracted_title",
    "same_authors",
    "stage",
    "stage_words",
    "title_key",
]
