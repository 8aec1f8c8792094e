from citeloom.domain.fusion import bm25_share, dbsf, linear, rrf
from citeloom.domain.models import ScoredPoint


def ranked(*ids: str, scores: list[float] | None = None) -> list[ScoredPoint]:
    scores = scores or [float(len(ids) - i) for i in range(len(ids))]
    return [ScoredPoint(i, s) for i, s in zip(ids, scores, strict=True)]


def test_rrf_rewards_agreement_between_signals():
    fused = rrf([ranked("a", "b", "c"), ranked("b", "d", "a")])
    assert [p.id for p in fused][:2] == ["b", "a"]
    assert fused[0].score == 1 / 62 + 1 / 61


def test_rrf_weights_favour_one_signal():
    dense, sparse = ranked("a", "b"), ranked("b", "a")
    assert rrf([dense, sparse], weights=[2.0, 1.0])[0].id == "a"
    assert rrf([dense, sparse], weights=[1.0, 2.0])[0].id == "b"


def test_rrf_keeps_payload_from_any_list():
    with_payload = [ScoredPoint("x", 1.0, {"fulltext": "t"})]
    without = [ScoredPoint("x", 2.0)]
    assert rrf([without, with_payload])[0].payload == {"fulltext": "t"}


def test_bm25_share_is_a_share_of_the_query_ceiling_whatever_else_was_found():
    # BM25 scores in the tens become shares of what the query can score; the best of a list
    # of weak matches is not stretched to 1 as min-max scaling would
    sparse = ranked("strong", "weak", scores=[30.0, 6.0])
    assert [p.score for p in bm25_share(sparse, ceiling=24.0)] == [1.0, 0.25]
    assert [p.score for p in bm25_share(ranked("weak", scores=[6.0]), ceiling=24.0)] == [0.25]
    assert [p.score for p in bm25_share(sparse, ceiling=0.0)] == [0.0, 0.0]


def test_linear_blends_absolute_scores_so_a_missing_signal_is_not_a_bonus():
    # "a" is close in meaning and holds half the query terms; "b" only sits a little nearer
    dense = ranked("b", "a", scores=[0.55, 0.50])
    sparse = ranked("a", "b", scores=[0.5, 0.0])
    fused = linear([dense, sparse], weights=[0.6, 0.4])
    assert [p.id for p in fused] == ["a", "b"]
    assert fused[0].score == 0.6 * 0.50 + 0.4 * 0.5


def test_dbsf_handles_single_candidate_and_empty_lists():
    fused = dbsf([ranked("a"), []])
    assert [p.id for p in fused] == ["a"]


def test_ties_break_deterministically():
    fused = rrf([ranked("b"), ranked("a")])
    assert [p.id for p in fused] == ["a", "b"]
