"""Does a score find the page an author's restatement summarises? Sentence cosine vs BERTScore.

For each of the authors' own restatements (benchmarks/data/author_restatements.json: a sentence
of an abstract, introduction or conclusion, and the later PDF page that states its result, read
and labelled by hand), every page of the paper is scored by its best sentence or pair of
consecutive sentences, two ways:

- ``cosine``: the mean-pooled MiniLM vectors of claim and sentence (what `check` aligns by
  besides its terms, docs/adr/0018);
- ``bertscore``: BERTScore recall over the same model's token vectors: each content word piece
  of the claim takes its most similar token of the sentence (cosine of the contextual vectors,
  stop words and punctuation left out), averaged.

It prints, per half of the split, how often the labelled page scores above every other page of
the paper (the claim's own page and the labelled page's neighbours left out: they may hold the
same words) and the mean AUC of the labelled page against the others. Page text comes from
pypdfium2 (the PDF's text layer), not from a conversion: this measures the scores, not
citeloom's reading of the page. Exploratory (ADR 0028, "what next"); nothing in `check` uses
BERTScore yet. Run:

    .venv/bin/python benchmarks/page_alignment.py [--half tune|test] [--show]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "benchmarks" / "data" / "author_restatements.json"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.machine import stamp_figures  # noqa: E402

STOP = frozenset(
    {
        *("the", "a", "an", "of", "and", "or", "to", "in", "on", "for", "with", "by", "is"),
        *("are", "was", "were", "be", "been", "this", "that", "these", "those", "it", "its"),
        *("as", "at", "from", "which", "we", "our", "their", "than"),
    }
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


class TokenVectors:
    """The fp32 MiniLM's contextual token vectors (unit length) and its pooled vector.

    Goes past the Embedder port, which gives pooled vectors only, to the ONNX embedder."""

    def __init__(self) -> None:
        from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
        from citeloom.config import Environment

        self.embedder = OnnxEmbedder.load(
            "fastembed/all-MiniLM-L6-v2-fp32",
            ROOT / "benchmarks" / ".work" / "alignment",
            model_cache=Environment().model_cache,
        )

    def __call__(self, text: str) -> tuple[Any, Any, list[str]]:
        from citeloom.adapters.embedding.sorted_runs import mean_pool

        embedder = self.embedder
        (ids,) = embedder._tokenizer.encode([text])
        hidden, mask = embedder.hidden_states([ids])
        pooled = mean_pool(hidden, mask)[0]
        tokens = hidden[0][1:-1]  # no [CLS], [SEP]
        tokens = tokens / np.linalg.norm(tokens, axis=1, keepdims=True)
        pieces = [embedder._tokenizer.tokenizer.id_to_token(i) for i in ids[1:-1]]
        return tokens, pooled, pieces


def page_texts(pdf: Path) -> list[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf))
    try:
        pages = []
        for page in document:
            text = page.get_textpage().get_text_range()
            pages.append(re.sub(r"\s+", " ", text.replace("\u00ad", "")))
        return pages
    finally:
        document.close()


def windows(page: str) -> list[str]:
    sentences = [s for s in SENTENCE_END.split(page) if len(s) > 20]
    return sentences + [f"{a} {b}" for a, b in itertools.pairwise(sentences)]


def page_score(vectors: TokenVectors, claim: tuple[Any, Any, list[str]], page: str) -> tuple:
    tokens, pooled, pieces = claim
    weights = np.array([0.0 if p in STOP or not p.strip("#").isalnum() else 1.0 for p in pieces])
    best_cosine = best_bertscore = 0.0
    for window in windows(page):
        their_tokens, their_pooled, _ = vectors(window)
        best_cosine = max(best_cosine, float(their_pooled @ pooled))
        recall = (tokens @ their_tokens.T).max(axis=1)
        score = float((recall * weights).sum() / max(weights.sum(), 1))
        best_bertscore = max(best_bertscore, score)
    return best_cosine, best_bertscore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=["tune", "test"], action="append")
    parser.add_argument("--show", action="store_true", help="one line per restatement")
    args = parser.parse_args()
    stamp_figures()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    half_of = {key: half for half, keys in data["split"].items() for key in keys}
    vectors = TokenVectors()
    pages_of: dict[str, list[str]] = {}
    for half in args.half or ["tune", "test"]:
        results = []
        for row in data["restatements"]:
            if half_of.get(row["citekey"]) != half:
                continue
            if row["file"] not in pages_of:
                pages_of[row["file"]] = page_texts(CORPUS / row["file"])
            pages = pages_of[row["file"]]
            claim = vectors(row["claim"])
            labelled = page_score(vectors, claim, pages[row["pdf_page"] - 1])
            others = [
                page_score(vectors, claim, text)
                for number, text in enumerate(pages, start=1)
                if abs(number - row["pdf_page"]) > 1 and number != row["claim_pdf_page"]
            ]
            if not others:  # a paper of the claim's page and the labelled one: nothing to rank
                continue
            results.append((labelled, others))
            if args.show:
                best = [max((o[i] for o in others), default=0.0) for i in (0, 1)]
                print(
                    f"{row['id']}: cosine {labelled[0]:.3f} (best other {best[0]:.3f}), "
                    f"bertscore {labelled[1]:.3f} (best other {best[1]:.3f})"
                )
        print(f"{half} half: {len(results)} restatements with other pages to rank")
        for i, name in ((0, "cosine"), (1, "bertscore")):
            first = sum(all(mine[i] > o[i] for o in others) for mine, others in results)
            auc = np.mean([np.mean([mine[i] > o[i] for o in others]) for mine, others in results])
            print(
                f"  {name:9}: labelled page above every other page {first}/{len(results)}, "
                f"mean AUC {auc:.3f}"
            )


if __name__ == "__main__":
    main()
