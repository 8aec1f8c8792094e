"""Precision of the relations citeloom infers between library entries (``domain.relations``).

Four libraries, each with the relations that hold in it (tests/data/relations_truth.json):

- the hand-made set (tests/data/relations.csl.json): a group of entries per relation type
  (arXiv preprint and journal article, arXiv v1 and v2, bioRxiv, a working paper, a
  conference paper and its journal version, errata, a comment and a reply, four kinds of
  retraction, two editions, one article entered twice) and traps where none holds (the same
  title by other people, Part I and Part II, close titles by the same authors, a yearly
  report, titles that begin "Correction of", "Response to", "Retraction cord", an erratum of
  a paper not in the library, an arXiv id in an unrelated note, two webpages, two chapters
  with their book's DOI); the rules were written against it;
- a held-out set (tests/data/relations_heldout.csl.json) in other wordings (medRxiv, SSRN,
  Google Scholar's "arXiv preprint" container, "Erratum: T", "Correction: T", "Publisher
  Correction to: T", "Response to Comments on 'T'", "RETRACTED ARTICLE:", "[Retracted]",
  "Retraction: T", arXiv v1 and v3 as URLs) and new traps, written before it was first run
  (first run: 12 certain, 11 right; the wrong one, an arXiv preprint typed article-journal
  with the container "arXiv preprint arXiv:1706.03762", is now read as a preprint);
- the library of the shared papers (tests/data/papers.csl.json): their real entries and the
  decoys of the matching benchmark (a report and a journal version with one title, close
  titles by the same authors in other years, the same title by others);
- Better BibTeX's 23 CSL-JSON test exports (../shared/corpus/csl-fixtures), each a library
  of its own: no relation holds in any.

A relation inferred that is not in the truth is wrong. Certain relations are applied (flags,
ranking, check notes): their precision must be 1. Possible ones are only listed by
``citeloom inspect --relations``; how many of them hold is printed too. With ``--documents``
the shared papers are converted (Docling, a few minutes) and what their pages say is added
to their library's relations. Run:

    .venv/bin/python benchmarks/relations_precision.py [--documents] [-v]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.corpora import CORPUS  # noqa: E402
from citeloom.adapters.csl_references import (  # noqa: E402
    CslMetadataResolver,
    load_references,
    title_score,
)
from citeloom.domain.relations import (  # noqa: E402
    PREPRINT,
    DocumentFacts,
    Relation,
    infer_relations,
    relation_graph,
    stage,
)

DATA = ROOT / "tests" / "data"
Key = tuple[str, str, str | None]


def truth_keys(rows: Sequence[dict]) -> set[Key]:
    keys: set[Key] = set()
    for row in rows:
        keys.add((row["kind"], row["from"], row["to"]))
        if row.get("either"):
            keys.add((row["kind"], row["to"], row["from"]))
    return keys


def document_facts(resolver: CslMetadataResolver) -> list[DocumentFacts]:
    """What the shared papers' first pages say, as ingest records it."""
    from citeloom.adapters.conversion.docling_converter import DoclingConverter
    from citeloom.domain.matching import arxiv_stamp

    logging.getLogger("docling").setLevel(logging.ERROR)
    converter = DoclingConverter()
    facts = []
    for pdf in sorted((CORPUS / "papers").glob("*.pdf")):
        document = converter.convert(pdf, "0" * 64)
        match = resolver.resolve(document, hint=pdf.stem)
        if match.citekey:
            stamp = arxiv_stamp(document.front_text(pages=1))
            facts.append(DocumentFacts(pdf.stem, str(pdf), match.citekey, stamp, match.also))
    return facts


def score(
    name: str, relations: Sequence[Relation], rows: Sequence[dict], entries: int, verbose: bool
) -> dict[str, int]:
    truth = truth_keys(rows)
    certain = [r for r in relations if r.certainty == "certain"]
    possible = [r for r in relations if r.certainty == "possible"]
    found = {(r.kind, r.source, r.target) for r in relations}
    missed = [
        row for row in rows if not truth_keys([row]) & found
    ]  # a relation that holds and was inferred neither certain nor possible
    counts = {
        "entries": entries,
        "certain": len(certain),
        "certain_right": sum((r.kind, r.source, r.target) in truth for r in certain),
        "possible": len(possible),
        "possible_right": sum((r.kind, r.source, r.target) in truth for r in possible),
        "truth": len(rows),
        "missed": len(missed),
    }
    if verbose:
        for row in missed:
            print(f"  {name}: missed {row['kind']} {row['from']} -> {row['to']}")
        for r in relations:
            holds = (r.kind, r.source, r.target) in truth
            mark = "holds" if holds else "WRONG" if r.certainty == "certain" else "does not hold"
            print(f"  {name}: {r.certainty:8} {r.describe():58} {mark}  | {r.evidence}")
    return counts


def line(name: str, c: dict[str, int]) -> str:
    precision = f"{c['certain_right'] / c['certain']:.2f}" if c["certain"] else "n/a"
    return (
        f"{name:28} {c['entries']:7} {c['certain']:8} {c['certain_right']:6} {precision:>9} "
        f"{c['possible']:8} {c['possible_right']:6} {c['truth']:6} {c['missed']:6}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", action="store_true", help="add the shared PDFs' word")
    parser.add_argument("-v", "--verbose", action="store_true", help="every relation")
    args = parser.parse_args()
    truth = json.loads((DATA / "relations_truth.json").read_text(encoding="utf-8"))
    rows = []

    hand = load_references(DATA / "relations.csl.json")
    relations = infer_relations(hand, title_score)
    found = score("hand-made", relations, truth["relations.csl.json"], len(hand), args.verbose)
    rows.append(("hand-made set", found))
    held = load_references(DATA / "relations_heldout.csl.json")
    relations = infer_relations(held, title_score)
    rows_held = truth["relations_heldout.csl.json"]
    found = score("held-out", relations, rows_held, len(held), args.verbose)
    rows.append(("held-out set", found))

    papers_path = DATA / "papers.csl.json"
    papers = load_references(papers_path)
    facts = document_facts(CslMetadataResolver(papers_path)) if args.documents else []
    relations = infer_relations(papers, title_score, facts)
    if facts:
        graph = relation_graph(relations, []).with_stages(
            r.citekey for r in papers if stage(r) == PREPRINT
        )
        stamped = [f for f in facts if f.arxiv_stamp]
        flagged = [f for f in stamped if graph.flags(f.citekey, f.arxiv_stamp).preprint_pdf]
        print(
            f"shared PDFs carrying arXiv's stamp: {len(stamped)} "
            f"({', '.join(f'{Path(f.path).name} @{f.citekey}' for f in stamped)}); flagged as "
            f"the preprint of an entry that is not one: {len(flagged)} "
            f"({', '.join(f'@{f.citekey}' for f in flagged) or 'none'})"
        )
    name = "shared papers + PDFs" if args.documents else "shared papers' library"
    found = score("papers", relations, truth["papers.csl.json"], len(papers), args.verbose)
    rows.append((name, found))

    total = dict.fromkeys(rows[0][1], 0)
    fixtures = sorted((CORPUS / "csl-fixtures").glob("*.json"))
    for path in fixtures:
        refs = load_references(path)
        relations = infer_relations(refs, title_score)
        counts = score(path.name[:30], relations, [], len(refs), args.verbose)
        for k, v in counts.items():
            total[k] += v
    rows.append((f"BBT fixtures ({len(fixtures)} files)", total))

    print(
        f"{'library':28} {'entries':>7} {'certain':>8} {'right':>6} {'precision':>9} "
        f"{'possible':>8} {'right':>6} {'truth':>6} {'missed':>6}"
    )
    for name, counts in rows:
        print(line(name, counts))
    every = {k: sum(c[k] for _, c in rows) for k in total}
    print(line("all", every))
    wrong = every["certain"] - every["certain_right"]
    print(
        f"\ncertain relations inferred: {every['certain']}, wrong: {wrong} (precision "
        f"{every['certain_right'] / max(every['certain'], 1):.3f}); possible (listed, never "
        f"applied): {every['possible']}, of which {every['possible_right']} hold"
    )


if __name__ == "__main__":
    from benchmarks.machine import stamp_figures

    stamp_figures()
    main()
