"""What the judge read for every claim of the check benchmarks, stored so that it runs without
the model, the index or ../shared: a rule change shows its effect in seconds.

For each claim of ``check_realistic.py``'s sets (correct and false, every half) cited to its
page: the claim's content as the check service builds it (its terms and their weights in the
library, the cited paper's authors and years, its topic words, which of the claim's names the
paper mentions, the paper's abbreviations) and the best-aligned spans of the cited page
(``SPANS`` of them, their sentences as check reads them: excerpts of ../shared/corpus) with
the dense similarity the judge computed (each sentence's cosine with the claim, each pair's of
a run). ``tests/unit/test_check_golden.py`` judges them again through ``domain.alignment`` and
holds the four figures of a hook to their floors. Regenerate after a change to what the judge
reads (sentence splitting, the conversion, the embedding model, the IDF), never to pass a
rule: the test names the items whose verdict changed. Run:

    .venv/bin/python benchmarks/check_golden.py
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.check_claims import authors_file, claim_on_page, halves, prepare  # noqa: E402
from benchmarks.check_realistic import (  # noqa: E402
    claims_items,
    fresh_items,
    realistic_items,
    restated_items,
)
from citeloom import bootstrap  # noqa: E402
from citeloom.domain.abbreviations import shortened  # noqa: E402
from citeloom.domain.name_swaps import claim_names  # noqa: E402
from citeloom.domain.names import mentioned  # noqa: E402
from citeloom.services.claim_judge import Similarities  # noqa: E402
from citeloom.services.evidence import sentence_key  # noqa: E402

OUT = ROOT / "tests" / "data" / "check_judge_inputs.json"
SPANS = 12  # the judge decides on the best dozen spans of a page


def main() -> None:
    logging.disable(logging.WARNING)
    config = prepare()
    settings = bootstrap.settings(config)
    index = bootstrap.index(settings)
    try:
        service = bootstrap.check_service(settings, "checks", index)
        core = service.judge_core
        keys = halves(authors_file())
        items = [
            *fresh_items(),
            *realistic_items(keys),
            *restated_items(keys),
            *claims_items(keys),
        ]
        stored = []
        texts: dict[str, str] = {}  # sentence key -> sentence, once for all claims
        papers: dict[str, dict[str, list[str]]] = {}  # citekey -> its abbreviations
        for item in items:
            if item.citekey not in service.papers():
                continue
            content, pages, short_forms = claim_on_page(
                service, item.claim, item.citekey, item.pdf_page
            )
            found = core.alignments(content, pages, short_forms)[:SPANS]
            sentences = list(dict.fromkeys(s for a in found for s in a.span.sentences))
            vectors = core.vectors.vectors(sentences, core.embedder.embed_documents)
            similarity = Similarities(
                core.embedder.embed_query(content.text),
                dict(zip(sentences, vectors, strict=True)),
            )
            pairs = {}
            for a in found:
                run = a.span.sentences
                for i, first in enumerate(run):
                    for second in run[i + 1 :]:
                        pair = sorted((sentence_key(first), sentence_key(second)))
                        pairs["|".join(pair)] = round(similarity.pair(first, second), 5)
            named = claim_names(shortened(content.text, short_forms), content.ignore_names)
            texts.update({sentence_key(s): s for s in sentences})
            papers[item.citekey] = {k: sorted(v) for k, v in sorted(short_forms.items())}
            stored.append(
                {
                    "set": item.set,
                    "id": item.id,
                    "half": item.half,
                    "correct": item.correct,
                    "change": item.change,
                    "claim": item.claim,
                    "weights": {t: round(w, 4) for t, w in content.weights.items()},
                    "ignore_names": sorted(content.ignore_names),
                    "ignore_numbers": sorted(content.ignore_numbers),
                    "context": sorted(content.context),
                    "paper_names": [n for n in named if mentioned(content.paper, n)],
                    "citekey": item.citekey,
                    "spans": [
                        [a.span.page, a.span.body, [sentence_key(s) for s in a.span.sentences]]
                        for a in found
                    ],
                    "claim_cosines": {
                        sentence_key(s): round(similarity.cosine(s), 5) for s in sentences
                    },
                    "pair_dots": pairs,
                }
            )
        about = __doc__.split("\n\n")[0] + " Written by benchmarks/check_golden.py."
        lines = [
            "{",
            f'"_about": {json.dumps(about)},',
            f'"papers": {json.dumps(papers, ensure_ascii=False, sort_keys=True)},',
            f'"sentences": {json.dumps(texts, ensure_ascii=False, sort_keys=True)},',
            '"items": [',
            ",\n".join(json.dumps(item, ensure_ascii=False) for item in stored),
            "]}",
        ]
        OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
        core.vectors.save()
        print(f"{len(stored)} claims' judge inputs written to {OUT.relative_to(ROOT)}")
    finally:
        index.close()


if __name__ == "__main__":
    main()
