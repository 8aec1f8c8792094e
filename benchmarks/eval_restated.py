"""Asked in other words: queries nobody here wrote, over papers/ and paginated/ (issue 44).

The shared papers' own query set (``eval_papers.py``) was written by people reading the page,
so its paraphrases share the page's words. The sets here were not:

- ``restated``: the authors' own restatements (benchmarks/data/author_restatements.json: a
  sentence of an abstract, introduction or conclusion restating a finding that a body page
  states). Each sentence is a query; a hit is only a passage of that body page (``pdf_page``),
  and the sentence's own page (``claim_pdf_page``) is left out of the ranking, or the query
  would find itself;
- ``fresh``: benchmarks/data/fresh_queries_r1.json, 48 queries (paraphrase, keyword,
  question) written by a helper who never read citeloom's code, each with its PDF pages;
  measured once before any tuning (docs/adr/0036 has that figure);
- ``fresh-r2``: benchmarks/data/fresh_queries_r2.json, 48 more by another such helper, written
  after ADR 0036's remedies were measured and measured once on the ranking as it stands;
- ``fresh-r3``: benchmarks/data/fresh_queries_r3.json, 48 more by a third such helper,
  measured once on the ranking as it stands (nothing tuned on it);
- ``papers``: the shared papers' own answerable queries, here among all 24 papers.

All run over one project of the 24 PDFs of papers/ and paginated/ (the library of
``check_claims.py``, benchmarks/.work/checks), split by paper into the tuning and test halves
of ``check_claims.halves`` (papers/: paper_split.json; paginated/: author_restatements.json's
split). Printed per set and half: hits at 1 and at 5 per kind, as counts, for BM25 alone,
dense alone and the default hybrid. ``--sweep`` adds the fusion policies of
``benchmarks/fusions.py``; ``--remedies`` issue 44's remedies for vocabulary mismatch (the
re-weighings of ``fusions.remedies``, and ``expansion.py``: BM25 with RM3 feedback, sentence
vectors, the title in the embedded text, for which a second project is ingested);
``--embedding-cost`` the CPU time to embed the chunks and their sentences; ``--only`` keeps
the rows naming one of its words; ``--show`` the default's tuning-half misses. Cranfield's
third-party queries are the other yardstick: ``eval_collections.py --only cranfield``. Run:

    .venv/bin/python benchmarks/eval_restated.py [--sweep] [--remedies] [--sets restated,fresh]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks import check_claims, expansion, fusions, paper_queries  # noqa: E402
from benchmarks.library import CachedEmbedder, remembered  # noqa: E402
from benchmarks.metrics import hit_at  # noqa: E402
from benchmarks.paper_queries import Outcome, is_hit  # noqa: E402
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.fusion import DEFAULT_FUSION, DEFAULT_WEIGHTS  # noqa: E402
from citeloom.domain.models import ScoredPoint  # noqa: E402
from citeloom.domain.records import passage_from_payload  # noqa: E402
from citeloom.services.query import QueryOptions, QueryService  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
SETS = ("restated", "fresh", "fresh-r2", "fresh-r3", "papers")
HALVES = ("tune", "test")
KINDS = ("restatement", "paraphrase", "keyword", "question", "phrase", "ocr")
Search = Callable[[dict], list[tuple]]


# ---------------------------------------------------------------- the sets
def restated(halves: dict[str, str]) -> list[dict]:
    """The authors' restatements as queries: the body page to find, the own page to leave out."""
    data = json.loads((DATA / "author_restatements.json").read_text(encoding="utf-8"))
    return [
        {
            "id": r["id"],
            "set": "restated",
            "kind": "restatement",
            "query": r["claim"],
            "citekey": r["citekey"],
            "pages": [r["pdf_page"]],
            "leave_out": r["claim_pdf_page"],
            "half": halves[r["citekey"]],
        }
        for r in data["restatements"]
    ]


def fresh(
    halves: dict[str, str], name: str = "fresh_queries_r1.json", label: str = "fresh"
) -> list[dict]:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    return [
        {
            "id": q["id"],
            "set": label,
            "kind": q["kind"],
            "query": q["query"],
            "citekey": q["citekey"],
            "pages": q["pdf_pages"],
            "half": halves[q["citekey"]],
        }
        for q in data["queries"]
    ]


def own(halves: dict[str, str]) -> list[dict]:
    """The shared papers' own answerable queries (``eval_papers.py``), here among 24 papers."""
    return [
        {**q, "id": f"p-{i:03d}", "set": "papers", "half": paper_queries.half(q)}
        for i, q in enumerate(paper_queries.load())
        if q["citekey"] is not None
    ]


def load(sets: Sequence[str]) -> list[dict]:
    halves = check_claims.halves(check_claims.authors_file())
    readers = {
        "restated": restated,
        "fresh": fresh,
        "fresh-r2": lambda h: fresh(h, "fresh_queries_r2.json", "fresh-r2"),
        "fresh-r3": lambda h: fresh(h, "fresh_queries_r3.json", "fresh-r3"),
        "papers": own,
    }
    return [q for name in sets for q in readers[name](halves)]


# ---------------------------------------------------------------- running
def touches(point: ScoredPoint, citekey: str, page: int) -> bool:
    passage = passage_from_payload(0, 0.0, point.id, point.payload or {})
    start = passage.page_start
    return (
        passage.citekey == citekey
        and start is not None
        and start <= page <= (passage.page_end or start)
    )


class LeavingOut:
    """An index whose searches leave out every chunk of one paper that touches one page
    (``leave``: citekey and page, or None): a restatement's own page is not a page to find,
    for any signal."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.leave: tuple[str, int] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def kept(self, points: list[ScoredPoint]) -> list[ScoredPoint]:
        if self.leave is None:
            return points
        return [p for p in points if not touches(p, *self.leave)]

    def dense_search(self, *args: Any) -> list[ScoredPoint]:
        return self.kept(self._inner.dense_search(*args))

    def text_search(self, *args: Any) -> list[ScoredPoint]:
        return self.kept(self._inner.text_search(*args))


def service_search(service: QueryService, index: LeavingOut, per_doc: int | None) -> Search:
    def search(query: dict) -> list[tuple]:
        index.leave = (query["citekey"], query["leave_out"]) if "leave_out" in query else None
        try:
            report = service.search(query["query"], QueryOptions(top_k=10, per_doc=per_doc))
        finally:
            index.leave = None
        return [(r.citekey, r.page_start, r.page_end) for r in report.results]

    return search


def run(queries: list[dict], search: Search) -> list[Outcome]:
    out = []
    for query in queries:
        hits = [is_hit(key, start, end, query) for key, start, end in search(query)]
        out.append(Outcome(query, hits))
    return out


# ---------------------------------------------------------------- printing
def cell(outcomes: list[Outcome]) -> str:
    if not outcomes:
        return "-"
    one = sum(hit_at(o.hits, 1) for o in outcomes)
    five = sum(hit_at(o.hits, 5) for o in outcomes)
    return f"{one:.0f}/{five:.0f} of {len(outcomes)}"


def table(rows: list[tuple[str, list[Outcome]]], width: int = 34) -> None:
    for set_name in SETS:
        for half in HALVES:
            chosen = [
                (
                    name,
                    [o for o in outcomes if o.query["set"] == set_name and o.query["half"] == half],
                )
                for name, outcomes in rows
            ]
            if not any(outcomes for _, outcomes in chosen):
                continue
            kinds = [k for k in KINDS if any(o.query["kind"] == k for o in chosen[0][1])]
            head = "".join(f"{k[:12]:>16}" for k in [*kinds, "all"])
            print(f"\n{set_name}, {half} half (hit@1/hit@5)\n{'':{width}}{head}")
            for name, outcomes in chosen:
                cells = [cell([o for o in outcomes if o.query["kind"] == k]) for k in kinds]
                cells.append(cell(outcomes))
                print(f"{name:{width}}" + "".join(f"{c:>16}" for c in cells))


def show(name: str, outcomes: list[Outcome]) -> None:
    """The tuning half's misses at hit@5 (a rule read off them is tuned on them)."""
    print(f"\n{name}: tuning-half misses at hit@5")
    for o in outcomes:
        if o.query["half"] == "tune" and not hit_at(o.hits, 5):
            q = o.query
            print(f"  {q['id']} [{q['kind']}] p. {q['pages']}: {q['query'][:110]}")


# ---------------------------------------------------------------- variants
@dataclass(frozen=True)
class Variant:
    """A row: QueryService arguments, a fusion policy put in as ``service.fuse`` (None: the
    service's), a wrapper of the index it reads (``expansion.py``), the project it reads."""

    name: str
    params: dict = field(default_factory=dict)
    policy: fusions.Fusion | None = None
    wrap: Callable[[Any, Any, Any], Any] | None = None  # (index, core, LeavingOut) -> index
    project: str = "checks"


def variants(sweep: bool) -> list[Variant]:
    dense_w, bm25_w = DEFAULT_WEIGHTS[DEFAULT_FUSION]
    chosen = [
        Variant("bm25 chunks", {"signals": "bm25"}),
        Variant("dense chunks", {"signals": "dense"}),
        Variant(f"hybrid {DEFAULT_FUSION} {dense_w:g}:{bm25_w:g} (default)"),
    ]
    if sweep:
        chosen += [Variant(name, params, policy) for name, params, policy in fusions.sweep()]
    return chosen


def remedies(sentences: Callable[..., Any]) -> list[Variant]:
    """Issue 44's remedies beside the default (``--remedies``)."""

    def rm3(index: Any, core: Any, leaving: LeavingOut) -> Any:
        return expansion.RM3(index, core, leaving.kept)

    def rm3_light(index: Any, core: Any, leaving: LeavingOut) -> Any:
        return expansion.RM3(index, core, leaving.kept, fb_docs=5, fb_terms=5, original=0.8)

    def sentences_half(index: Any, core: Any, leaving: LeavingOut) -> Any:
        made = sentences(index, core, leaving)
        made.mix = 0.5
        return made

    def sentences_max(index: Any, core: Any, leaving: LeavingOut) -> Any:
        made = sentences(index, core, leaving)
        made.mix = None
        return made

    def watched(mass: fusions.IdfMass) -> Callable[[Any, Any, Any], Any]:
        return lambda index, core, leaving: mass.watch(index)

    masses = [fusions.IdfMass(), fusions.IdfMass(0.3, 0.8, 0.5)]
    return [
        *[Variant(name, {}, policy) for name, policy in fusions.remedies()],
        *[
            Variant(
                f"idf mass {m.low:g}-{m.high:g} floor {m.floor:g}",
                policy=m,
                wrap=watched(m),
            )
            for m in masses
        ],
        Variant("bm25 rm3", {"signals": "bm25"}, wrap=rm3),
        Variant("hybrid + bm25 rm3", wrap=rm3),
        Variant("hybrid + bm25 rm3 (5 docs, 5 terms, .8)", wrap=rm3_light),
        Variant("dense best sentence", {"signals": "dense"}, wrap=sentences_max),
        Variant("hybrid + best sentence", wrap=sentences_max),
        Variant("hybrid + best sentence mixed .5", wrap=sentences_half),
        Variant("dense titled", {"signals": "dense"}, project="titled"),
        Variant("hybrid titled", project="titled"),
    ]


class Library:
    """One project's index, remembered and leaving out pages, for every variant."""

    def __init__(self, config: Path, project: str) -> None:
        self.settings = bootstrap.settings(config)
        self.project = project
        self.collection = self.settings.get_project(project).collection
        self.engine = bootstrap.index(self.settings)
        inner = bootstrap.embedder(self.settings, self.settings.get_project(project))
        self.remembering, self.embedder = remembered(self.engine, inner)
        self.leaving = LeavingOut(self.remembering)
        self.inner_embedder = inner

    def close(self) -> None:
        self.engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="also the other fusion policies")
    parser.add_argument("--remedies", action="store_true", help="also issue 44's remedies")
    parser.add_argument("--sets", default=",".join(SETS), help="sets to run")
    parser.add_argument("--show", action="store_true", help="the default's tuning-half misses")
    parser.add_argument(
        "--only", default="", help="rows whose name holds one of these words (comma-separated)"
    )
    parser.add_argument(
        "--embedding-cost", action="store_true", help="CPU to embed chunks and sentences"
    )
    args = parser.parse_args()
    logging.getLogger("docling").setLevel(logging.ERROR)
    config = check_claims.prepare()
    queries = load(args.sets.split(","))
    for set_name in SETS:
        mine = [q for q in queries if q["set"] == set_name]
        if mine:
            print(
                f"{set_name}: "
                + "; ".join(f"{h} {sum(q['half'] == h for q in mine)}" for h in HALVES)
            )
    libraries = {"checks": Library(config, "checks")}
    chosen = variants(args.sweep)
    if args.remedies:
        titled = expansion.titled(
            check_claims.FOLDER.parent / "titled",
            check_claims.library(),
            [check_claims.CORPUS / "papers", check_claims.CORPUS / "paginated"],
        )
        libraries["titled"] = Library(titled, "titled")
        checks = libraries["checks"]
        cached = CachedEmbedder(checks.inner_embedder, checks.settings.paths.cache_dir / "vectors")
        made: list[Any] = []

        def sentences(index: Any, core: Any, leaving: LeavingOut) -> Any:
            if not made:
                start = time.perf_counter()
                made.append(
                    expansion.BestSentence(
                        index, core, cached, checks.collection, "checks", leaving.kept
                    )
                )
                print(
                    f"sentence vectors: {made[0].count} sentences of {len(made[0].ids)} "
                    f"chunks ({time.perf_counter() - start:.0f} s)"
                )
            return made[0]

        chosen += remedies(sentences)
    if args.only:
        words = args.only.split(",")
        chosen = chosen[:3] + [v for v in chosen[3:] if any(w in v.name for w in words)]
    rows = []
    try:
        if args.embedding_cost:
            checks = libraries["checks"]
            texts = expansion.chunk_texts(checks.engine, checks.collection, "checks")
            print("embedding cost (CPU s):", expansion.embedding_cost(checks.inner_embedder, texts))
        for variant in chosen:
            library = libraries[variant.project]
            index: Any = library.leaving
            if variant.wrap is not None:
                index = variant.wrap(library.leaving, library.engine, library.leaving)
            service = QueryService(
                project=library.project,
                collection=library.collection,
                embedder=library.embedder,
                index=index,
                **variant.params,
            )
            if variant.policy is not None:
                service.fuse = variant.policy
            search = service_search(service, library.leaving, QueryOptions().per_doc)
            outcomes = run(queries, search)
            rows.append((variant.name, outcomes))
            if args.show and "(default)" in variant.name:
                show(variant.name, outcomes)
    finally:
        for library in libraries.values():
            library.close()
    table(rows)


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
