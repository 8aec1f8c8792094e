"""Sentences that support a claim, each with the page it is on and verified there.

``answer`` and ``check`` both need the same thing from a set of passages: their whole
sentences scored against a claim (a question or a sentence of a draft), each located on one
page of the stored document text and checked to occur there verbatim after the indexing
normalisation. A sentence that cannot be located is kept out of every answer and verdict:
a quote is only shown with a page it is known to be on. A note stored beside a paper is never
evidence: only the paper's own text is quoted as its words; nor is its reference list
(``domain.reference_lists``): an entry there names another work.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from citeloom.domain.abstention import confidence, content_terms, covered_terms, idf
from citeloom.domain.facts import FRAMING_WORDS
from citeloom.domain.records import Passage
from citeloom.domain.reference_lists import in_reference_list, reference_blocks
from citeloom.domain.sentences import looks_whole, split_sentences
from citeloom.domain.text import fold_for_match, normalise_text
from citeloom.ports import DocumentText, Embedder, IndexReader, SentenceVectorStore


@dataclass(frozen=True)
class Support:
    """One sentence of a passage, scored against a claim, with the page it is on."""

    passage: Passage
    quote: str  # exactly as stored in the passage
    page: int | None
    score: float  # in [0, 1]; 0.5 splits support from none, as query confidence does
    similarity: float  # cosine of claim and sentence
    verified: bool  # found verbatim on ``page`` of the stored document text
    coverage: float = 0.0  # the share of the claim's terms (IDF-weighted) the sentence holds

    @property
    def citekey(self) -> str | None:
        return self.passage.citekey

    @property
    def page_label(self) -> str | None:
        """The printed page the quote is on: the page a citation names."""
        return self.passage.page_label(self.page)

    @property
    def label(self) -> str:
        return self.passage.cite(self.page)


def sentence_key(sentence: str) -> str:
    """The key a sentence's vector is stored under: a hash of its text."""
    return hashlib.sha1(sentence.encode("utf-8")).hexdigest()[:20]


class SentenceVectors:
    """Sentence vectors of one model, kept across calls by a long-lived process and, with a
    ``store``, across processes (a pre-commit hook's ``check`` runs in a fresh one each time).

    Embedding the candidate sentences is most of an answer's and a check's time, and the same
    papers come back call after call. A vector depends only on the model and the sentence, so
    it never goes stale; the least recently used are dropped past ``limit`` (a float32 vector
    of MiniLM is 1.5 KB, so the default holds 30 MB)."""

    def __init__(self, limit: int = 20_000, store: SentenceVectorStore | None = None) -> None:
        self.limit = limit
        self.store = store
        self._items: OrderedDict[str, Sequence[float]] = OrderedDict()
        self._stored: dict[str, Sequence[float]] | None = None  # read at first need
        self._fresh: dict[str, Sequence[float]] = {}  # embedded since the last save
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def vectors(
        self, sentences: Sequence[str], embed: Callable[[list[str]], list[list[float]]]
    ) -> list[Sequence[float]]:
        """The vector of each sentence, embedding (in one batch) only those not held here
        or in the store."""
        with self._lock:
            if self.store is not None and self._stored is None:
                self._stored = self.store.load()
            for sentence in sentences:
                if sentence not in self._items and self._stored:
                    found = self._stored.get(sentence_key(sentence))
                    if found is not None:
                        self._items[sentence] = found
            new = list(dict.fromkeys(s for s in sentences if s not in self._items))
        fresh = dict(zip(new, embed(new), strict=True)) if new else {}
        with self._lock:
            for sentence, vector in fresh.items():
                self._items[sentence] = array("f", vector)
                if self.store is not None:
                    self._fresh[sentence_key(sentence)] = self._items[sentence]
            out: list[Sequence[float]] = []
            for sentence in sentences:
                held = self._items.get(sentence)
                if held is None:  # dropped by a concurrent call meanwhile
                    out.append(fresh[sentence])
                    continue
                self._items.move_to_end(sentence)
                out.append(held)
            while len(self._items) > self.limit:
                self._items.popitem(last=False)
        return out

    def save(self) -> None:
        """Write the vectors embedded since the last save to the store (if any)."""
        with self._lock:
            fresh, self._fresh = self._fresh, {}
            if self._stored is not None:
                self._stored.update(fresh)
        if fresh and self.store is not None:
            self.store.save(fresh)


@dataclass(frozen=True)
class WarmEvidence:
    """What a server keeps between answers for one embedding model: its sentence vectors and
    the stored page texts (parsed once, not once per call)."""

    vectors: SentenceVectors
    texts: DocumentText


class SentenceEvidence:
    """Scores and locates the sentences of passages of one collection."""

    def __init__(
        self,
        *,
        collection: str,
        embedder: Embedder,
        index: IndexReader,
        texts: DocumentText,
        vectors: SentenceVectors | None = None,
    ) -> None:
        """``vectors``: a cache that outlives this object (a server's); a draft cites one
        paper many times, so even a one-off check keeps its own."""
        self.collection = collection
        self.embedder = embedder
        self.index = index
        self.texts = texts
        self._sha: dict[str, str] = {}
        self._normalised: dict[tuple[str, int | None], str] = {}
        self._vectors = vectors if vectors is not None else SentenceVectors()
        self._documents: dict[tuple[str, str], str] = {}
        # whole sentences looked up on their pages, and how many were found there: the
        # verification rate benchmarks report
        self.checked = 0
        self.verified = 0

    def supports(
        self,
        claim: str,
        passages: Sequence[Passage],
        *,
        around: int = 0,
        block_ends: bool = False,
    ) -> list[Support]:
        """Every whole, located sentence of ``passages`` with its score for ``claim``, best
        first; a sentence repeated by overlapping chunks appears once.

        The claim's words are looked for in the sentence and ``around`` sentences either side
        of it on its page (a claim's subject is often named in the sentence before). The
        passage's own authors ("Hong and Jung find ...") and words that only frame a claim
        ("as reported", "colleagues") are not looked for. With ``block_ends``, a sentence
        ending its block without a full stop (a formula line) is one too."""
        seen: set[str] = set()
        found: list[tuple[Passage, str, int | None, bool]] = []
        passages = [
            p for p in passages if p.kind == "paper" and not in_reference_list(p.section_path)
        ]
        self._learn_sources(passages)
        for passage in passages:
            lines = passage.text.split("\n")
            starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
            entries = reference_blocks([("text", line) for line in lines])
            for sentence in split_sentences(passage.text):
                key = fold_for_match(sentence.text)
                whole = looks_whole(sentence.text, block_end=block_ends and sentence.block_end)
                entry = entries[bisect_right(starts, sentence.start) - 1]
                if key in seen or not whole or entry:
                    continue
                seen.add(key)
                page, verified = self.locate(passage, sentence.text)
                self.checked += 1
                self.verified += verified
                if verified:
                    found.append((passage, sentence.text, page, verified))
        if not found:
            return []
        names = {fold_for_match(n) for p in passages for n in p.family_names}
        weights = {
            t: w
            for t, w in self.term_weights(claim).items()
            if t not in names and t not in FRAMING_WORDS
        }
        claim_vector = self.embedder.embed_query(claim)
        vectors = self._vectors.vectors(
            [quote for _, quote, _, _ in found], self.embedder.embed_documents
        )
        out = []
        for (passage, quote, page, verified), vector in zip(found, vectors, strict=True):
            similarity = sum(a * b for a, b in zip(claim_vector, vector, strict=True))
            support = Support(passage, quote, page, 0.0, similarity, verified)
            context = self.window(support, around) if around else quote
            covered = covered_terms(weights, [context])
            total = sum(weights.values())
            own = sum(weights[t] for t in covered_terms(weights, [quote])) / total if total else 0
            score = confidence(weights, covered, similarity)
            out.append(replace(support, score=score, coverage=own))
        return sorted(out, key=lambda s: (-s.score, s.passage.rank, s.quote))

    def locate(self, passage: Passage, sentence: str) -> tuple[int | None, bool]:
        """The page of the passage's span whose stored text holds ``sentence`` verbatim
        (after normalisation), and whether it was found. Without a stored conversion on this
        machine, a one-page chunk is its own page's stored text; a sentence of a chunk over
        several pages cannot be placed, so it is not verified."""
        wanted = normalise_text(sentence)
        sha = self._sha.get(passage.chunk_id, "")
        pages = self.texts.pages(sha)
        if pages is None:
            one_page = passage.page_start == passage.page_end
            return passage.page_start, one_page and wanted in normalise_text(passage.text)
        span: Iterable[int | None] = (
            [None]
            if passage.page_start is None
            else range(passage.page_start, (passage.page_end or passage.page_start) + 1)
        )
        for page in span:
            if (sha, page) not in self._normalised:
                self._normalised[sha, page] = normalise_text(pages.get(page, ""))
            if wanted and wanted in self._normalised[sha, page]:
                return page, True
        return passage.page_start, False

    def page_text(self, support: Support) -> str:
        """The stored text of the page the sentence is on, normalised as indexing does (the
        passage's own text when this machine holds no stored conversion)."""
        sha = self._sha.get(support.passage.chunk_id, "")
        pages = self.texts.pages(sha)
        if pages is None:
            return normalise_text(support.passage.text)
        if (sha, support.page) not in self._normalised:
            self._normalised[sha, support.page] = normalise_text(pages.get(support.page, ""))
        return self._normalised[sha, support.page]

    def document_text(self, support: Support) -> str:
        """The stored text of the whole document the sentence is from, normalised."""
        sha = self._sha.get(support.passage.chunk_id, "")
        if ("doc", sha) not in self._documents:
            pages = self.texts.pages(sha)
            text = " ".join(pages.values()) if pages else support.passage.text
            self._documents["doc", sha] = normalise_text(text)
        return self._documents["doc", sha]

    def window(self, support: Support, around: int = 1) -> str:
        """The sentence with ``around`` sentences either side of it on its page: a figure the
        claim gives may be stated in the next sentence."""
        page = self.page_text(support)
        quote = normalise_text(support.quote)
        start = page.find(quote)
        if start < 0:
            return quote
        sentences = split_sentences(page)
        hit = [i for i, s in enumerate(sentences) if s.end > start and s.start < start + len(quote)]
        if not hit:
            return quote
        first, last = max(0, hit[0] - around), min(len(sentences) - 1, hit[-1] + around)
        return page[sentences[first].start : sentences[last].end]

    def _learn_sources(self, passages: Sequence[Passage]) -> None:
        """The file hash behind each passage (the key of its stored text), one lookup."""
        missing = [p.chunk_id for p in passages if p.chunk_id not in self._sha]
        if missing:
            for chunk, payload in self.index.payloads(self.collection, missing).items():
                self._sha[chunk] = (payload.get("source") or {}).get("sha256", "")

    def library_idf(self, text: str) -> dict[str, float]:
        """The engine's IDF of each content word of ``text``, 0.0 for a word no chunk holds."""
        engine = {
            fold_for_match(w): v for w, v in self.index.term_weights(self.collection, text).items()
        }
        return {t: engine[t] for t in content_terms(text) if t in engine}

    def term_weights(self, claim: str) -> dict[str, float]:
        """The claim's content words weighed by the engine's IDF, as query confidence does: a
        word no chunk holds weighs as much as the rarest can."""
        info = self.index.collection_info(self.collection)
        absent = idf(info.points if info else 0, 0)
        return {t: w or absent for t, w in self.library_idf(claim).items()}
