"""The query use case: the best passages of a project with citation-ready labels.

Dense and BM25 candidates are fetched separately, both restricted to the project and to the
filters (quoted phrases included), fused by a pure function from ``domain.fusion``, checked for
the quoted phrases verbatim, made diverse (``domain.diversity``), cut to ``top_k`` or a token
budget, and given a confidence (``domain.abstention``) that says whether the library answers
the question at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal

from citeloom.domain.abstention import confidence, content_terms, covered_terms, idf
from citeloom.domain.diversity import diversify
from citeloom.domain.errors import ConfigError
from citeloom.domain.fusion import (
    DEFAULT_FUSION,
    DEFAULT_WEIGHTS,
    FUSIONS,
    RRF_K,
    bm25_share,
    rrf,
)
from citeloom.domain.library_filters import expand_collections, expand_tags
from citeloom.domain.models import CollectionInfo, ScoredPoint
from citeloom.domain.query_syntax import DEFAULT_TOP_K, MAX_TOP_K, parse_query
from citeloom.domain.records import COLLECTIONS_FIELD, TAGS_FIELD, Passage, passage_from_payload
from citeloom.domain.relations import RelationGraph, prefer_records
from citeloom.domain.text import fold_for_match
from citeloom.ports import Embedder, IndexReader, RelationSource, SearchFilter

Signals = Literal["hybrid", "dense", "bm25"]
TRIMMED = "…"  # ends a passage cut short to fit a token budget


@dataclass(frozen=True)
class QueryOptions:
    # None: DEFAULT_TOP_K, or with a budget as many passages as fit it (up to MAX_TOP_K);
    # a number is always that number, 6 included
    top_k: int | None = None
    citekeys: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    sections: tuple[str, ...] = ()
    per_doc: int | None = 3  # None: no limit per document
    budget: int | None = None  # word pieces of passage text, labels included

    @property
    def limit(self) -> int:
        if self.top_k is not None:
            return self.top_k
        return MAX_TOP_K if self.budget is not None else DEFAULT_TOP_K


@dataclass
class QueryReport:
    query: str
    project: str
    results: list[Passage] = field(default_factory=list)
    answerable: bool = False
    confidence: float = 0.0
    phrases: tuple[str, ...] = ()
    note: str | None = None
    # the project's confidence floor ([query] min_confidence): the set, and each passage, at
    # or over it seem to answer the query
    min_confidence: float = 0.5


def contains_phrase(text: str, phrase: str) -> bool:
    """Verbatim after normalisation: NFKC, case, accents, hyphenation and punctuation."""
    return f" {fold_for_match(phrase)} " in f" {fold_for_match(text)} "


class QueryService:
    def __init__(
        self,
        *,
        project: str,
        collection: str,
        embedder: Embedder,
        index: IndexReader,
        signals: Signals = "hybrid",
        fusion: str = DEFAULT_FUSION,
        weights: Sequence[float] | None = None,
        candidates: int = 50,
        min_confidence: float = 0.5,
        rrf_k: int = RRF_K,
        languages: Sequence[str] | None = None,
        relations: RelationSource | None = None,
    ) -> None:
        """``languages``: the project's BM25 languages, which the collection must have been
        built for (None: not checked). ``relations``: the library's relations between
        entries, which flag the results and put the version of record first."""
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r}; choose one of {sorted(FUSIONS)}")
        self.project = project
        self.collection = collection
        self.embedder = embedder
        self.index = index
        self.signals = signals
        self.fuse = partial(rrf, k=rrf_k) if fusion == "rrf" else FUSIONS[fusion]
        self.weights = list(DEFAULT_WEIGHTS[fusion] if weights is None else weights)
        self.candidates = candidates
        self.min_confidence = min_confidence
        self.languages = languages
        self.relations = relations

    def graph(self, passages: Sequence[Passage] = ()) -> RelationGraph:
        """The library's relations, with what the documents of ``passages`` add."""
        if self.relations is None:
            return RelationGraph()
        return self.relations.with_documents([f for p in passages if (f := p.facts)])

    def search(self, text: str, options: QueryOptions | None = None) -> QueryReport:
        options = options or QueryOptions()
        first, last = options.year_from, options.year_to
        if first is not None and last is not None and first > last:
            raise ConfigError(f"--year-from {first} is after --year-to {last}.")
        if not re.search(r"\w", text):  # nothing to rank by: any passage would be arbitrary
            raise ConfigError(
                f"empty query {text!r}: say what you are looking for, e.g. "
                'citeloom query "how fast do restored marshes accrete sediment".'
            )
        parsed = parse_query(text)
        report = QueryReport(
            query=text,
            project=self.project,
            phrases=parsed.phrases,
            min_confidence=self.min_confidence,
        )
        info = self.index.collection_info(self.collection)
        if info is None or info.points == 0:
            report.note = (
                f"project '{self.project}' has nothing indexed yet (collection "
                f"'{self.collection}'). Run: citeloom ingest --project {self.project}"
            )
            return report
        # A query embedded by another model than the stored vectors would rank noise, and one
        # stemmed for other languages would miss the stored terms.
        self.index.check_model(self.collection, self.embedder.model_id, self.languages)
        tags, collections = self._library_filters(options)
        filters = SearchFilter(
            project=self.project,
            citekeys=options.citekeys,
            tags=tags,
            collections=collections,
            year_from=options.year_from,
            year_to=options.year_to,
            sections=tuple(w for s in options.sections for w in re.findall(r"\w+", s)),
            phrases=parsed.phrases,
        )
        limit = max(self.candidates, options.limit * 5)
        weights = self.index.term_weights(self.collection, parsed.text)
        dense, sparse = self._signals(parsed.text, filters, limit, sum(weights.values()))
        ranked = (
            self.fuse([dense, sparse], self.weights)
            if self.signals == "hybrid"
            else dense or sparse
        )
        candidates = [
            p
            for p in self._passages(ranked)
            if all(contains_phrase(p.text, q) for q in parsed.phrases)
        ]
        # versions of one work: flagged, the version of record first between near-ties, and
        # never collapsed into each other as near-duplicates (a comparison needs both)
        graph = self.graph(candidates)
        candidates = [replace(p, flags=graph.flags(p.citekey, p.arxiv_stamp)) for p in candidates]
        candidates = prefer_records(candidates, graph, lambda p: p.citekey, lambda p: p.score)
        passages = diversify(
            candidates,
            lambda p: p.text,
            lambda p: p.doc_id,
            per_doc=options.per_doc,
            limit=options.limit,
            work=lambda p: (w, p.citekey or "") if (w := graph.work(p.citekey)) else None,
        )
        passages = passages[: options.limit]
        # judged before the budget cut: a budget changes what is shown, never the confidence
        judge = self._judge(parsed.text, dense, weights, info)
        report.confidence = judge([p.text for p in passages[:3]], dense[0].score if dense else None)
        report.answerable = bool(passages) and report.confidence >= self.min_confidence
        # each passage judged alone the same way: a passage of another paper that shares no
        # word and little meaning with the question is not shown as an equal of the rest
        similarity = {p.id: p.score for p in dense}
        passages = [
            replace(p, confidence=judge([p.text], similarity.get(p.chunk_id))) for p in passages
        ]
        if options.budget is not None:
            passages, report.note = self._fit(passages, options.budget)
        report.results = [replace(p, rank=i) for i, p in enumerate(passages, start=1)]
        return report

    def _library_filters(self, options: QueryOptions) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The stored tags and collection paths the options name: a collection with its
        sub-collections, names whatever their case; an unknown one is a ``ConfigError``
        naming those there are (``domain.library_filters``)."""
        scope = SearchFilter(project=self.project)
        tags = options.tags and expand_tags(
            options.tags, self.index.field_values(self.collection, TAGS_FIELD, scope)
        )
        collections = options.collections and expand_collections(
            options.collections,
            self.index.field_values(self.collection, COLLECTIONS_FIELD, scope),
        )
        return tags, collections

    def _signals(
        self, text: str, filters: SearchFilter, limit: int, ceiling: float
    ) -> tuple[list[ScoredPoint], list[ScoredPoint]]:
        """The dense and BM25 candidates, each list scored on its own absolute scale.

        In a hybrid query both lists end up holding the same candidates: whatever one signal
        found and the other did not is scored by the other too (exact cosine of its stored
        vector, BM25 of its stored terms), restricted to those chunks. A candidate only one
        signal knows would otherwise count as 0 for the other."""
        dense: list[ScoredPoint] = []
        sparse: list[ScoredPoint] = []
        vector: list[float] = []
        if self.signals != "bm25":
            vector = self.embedder.embed_query(text)
            dense = self.index.dense_search(self.collection, vector, filters, limit)
        if self.signals != "dense":
            sparse = self.index.text_search(self.collection, text, filters, limit)
        if self.signals == "hybrid":
            known = {p.id for p in dense}
            if missing := tuple(p.id for p in sparse if p.id not in known):
                dense += self.index.dense_search(
                    self.collection, vector, replace(filters, point_ids=missing), len(missing)
                )
            known = {p.id for p in sparse}
            if missing := tuple(p.id for p in dense if p.id not in known):
                # chunks holding none of the query's terms are not returned: BM25 0
                sparse += self.index.text_search(
                    self.collection, text, replace(filters, point_ids=missing), len(missing)
                )
        by_score = partial(sorted, key=lambda p: (-p.score, p.id))
        return by_score(dense), by_score(bm25_share(sparse, ceiling))

    def _passages(self, ranked: list[ScoredPoint]) -> Iterator[Passage]:
        missing = [p.id for p in ranked if p.payload is None]
        payloads = self.index.payloads(self.collection, missing) if missing else {}
        for p in ranked:
            yield passage_from_payload(0, p.score, p.id, p.payload or payloads.get(p.id, {}))

    def _fit(self, passages: list[Passage], budget: int) -> tuple[list[Passage], str | None]:
        """The best passages until ``budget`` tokens (labels included) are spent. When not
        even the best one fits, it is trimmed to the budget rather than hidden; when not even
        its label does, a note says so."""
        kept: list[Passage] = []
        spent = 0
        for passage in passages:
            cost = self.embedder.count_tokens(f"{passage.label} {passage.text}")
            if spent + cost > budget:
                break
            kept.append(passage)
            spent += cost
        if kept or not passages:
            return kept, None
        trimmed = self._trim(passages[0], budget)
        if trimmed is not None:
            return [trimmed], None
        best = passages[0]
        first_word = next(iter(best.text.split()), "")
        need = self.embedder.count_tokens(f"{best.label} {first_word} {TRIMMED}")
        return [], (
            f"nothing fits in {budget} tokens: the best passage needs {need} for its label "
            f"and first word. Raise --budget to {need} or more."
        )

    def _trim(self, passage: Passage, budget: int) -> Passage | None:
        """The longest run of the passage's first words that fits the budget with its label."""
        ends = [m.end() for m in re.finditer(r"\S+", passage.text)]

        def text(words: int) -> str:
            return f"{passage.text[: ends[words - 1]]} {TRIMMED}"

        def fits(words: int) -> bool:
            return self.embedder.count_tokens(f"{passage.label} {text(words)}") <= budget

        if not ends or not fits(1):
            return None
        low, high = 1, len(ends)
        while low < high:  # the most words that fit
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits(middle) else (low, middle - 1)
        return replace(passage, text=text(low), trimmed=True)

    def _judge(
        self,
        text: str,
        dense: list[ScoredPoint],
        weights: dict[str, float],
        info: CollectionInfo,
    ) -> Callable[[list[str], float | None], float]:
        """The confidence of passages' texts with a dense similarity, for this query: its
        content words weighed by the engine's own IDF (a word no chunk holds weighs as much as
        the rarest word can: the library lacks it, which says the most)."""
        engine = {fold_for_match(word): weight for word, weight in weights.items()}
        absent = idf(info.points, 0)
        terms = [t for t in content_terms(text) if t in engine]
        term_weight = {t: engine[t] or absent for t in terms}

        def judge(texts: list[str], similarity: float | None) -> float:
            return confidence(term_weight, covered_terms(terms, texts), similarity)

        return judge
