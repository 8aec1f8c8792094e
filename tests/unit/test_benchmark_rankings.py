"""What issue 44's ranking benchmark measures, checked by hand so its figures can be trusted:
a restatement never finds its own page, the remedies it compares do what their names say."""

from benchmarks.eval_restated import LeavingOut, load
from benchmarks.fusions import IdfMass, dense_kept

from citeloom.domain.models import ScoredPoint


def chunk(pid: str, citekey: str, start: int, end: int, score: float = 1.0) -> ScoredPoint:
    payload = {
        "zotero": {"citekey": citekey},
        "doc": {"page_start": start, "page_end": end},
        "fulltext": f"text of {pid}",
    }
    return ScoredPoint(pid, score, payload)


class Engine:
    """Answers every search with the same chunks, as a stand-in index."""

    def __init__(self, points: list[ScoredPoint]) -> None:
        self.points = points

    def dense_search(self, *args: object) -> list[ScoredPoint]:
        return list(self.points)

    def text_search(self, *args: object) -> list[ScoredPoint]:
        return list(self.points)


def test_a_restatement_never_finds_its_own_page_through_either_signal():
    points = [
        chunk("own", "smith2020", 1, 1),
        chunk("spans", "smith2020", 2, 3),  # runs onto the left-out page: out too
        chunk("body", "smith2020", 7, 7),
        chunk("other", "jones2019", 3, 3),  # the same page of another paper stays
    ]
    index = LeavingOut(Engine(points))
    index.leave = ("smith2020", 3)
    assert [p.id for p in index.dense_search()] == ["own", "body", "other"]
    assert [p.id for p in index.text_search()] == ["own", "body", "other"]
    index.leave = None
    assert len(index.dense_search()) == 4


def test_every_restatement_looks_for_a_body_page_other_than_its_own():
    queries = load(["restated"])
    assert len(queries) >= 100
    for q in queries:
        assert q["leave_out"] not in q["pages"], q["id"]
        assert q["half"] in ("tune", "test"), q["id"]


def test_the_fresh_queries_are_split_by_paper_like_the_other_sets():
    queries = load(["fresh"])
    kinds = {q["kind"] for q in queries}
    assert kinds == {"paraphrase", "keyword", "question"}
    halves: dict[str, set[str]] = {}
    for q in queries:
        halves.setdefault(q["citekey"], set()).add(q["half"])
    assert all(len(h) == 1 for h in halves.values())
    assert {h for hs in halves.values() for h in hs} == {"tune", "test"}


def test_dense_best_is_moved_into_the_top_only_when_bm25_found_nothing_confident():
    ids = "abcdef"
    # the blend puts f last: best cosine, but no BM25 at all
    dense = [ScoredPoint(i, s) for i, s in zip(ids, (0.5, 0.5, 0.5, 0.5, 0.5, 0.6), strict=True)]
    weak = [ScoredPoint(i, s) for i, s in zip(ids, (0.4, 0.35, 0.3, 0.25, 0.2, 0.0), strict=True)]
    keep = dense_kept(confident=0.5, keep=1, at=3)
    assert [p.id for p in keep([dense, weak], (0.6, 0.4))] == list("abfcde")
    strong = [ScoredPoint(p.id, p.score + 0.5 if p.id == "a" else p.score) for p in weak]
    assert [p.id for p in keep([dense, strong], (0.6, 0.4))] == list("abcdef")


def test_idf_mass_is_the_share_of_the_query_weight_its_best_bm25_chunk_holds():
    mass = IdfMass()
    mass.weights = {"restored": 1.0, "marshes": 3.0, "accrete": 4.0}
    best = ScoredPoint("x", 9.0, {"fulltext": "Restored marshes keep pace with the sea."})
    assert mass.mass(best) == 0.5
    assert mass.mass(None) == 0.0
