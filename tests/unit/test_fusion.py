from citeloom.domain.fusion import dbsf, linear, rrf
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


def test_linear_uses_normalised_scores_not_scales():
    # BM25 scores in the tens must not drown cosine similarities below one
    dense = ranked("a", "b", scores=[0.9, 0.2])
    sparse = ranked("b", "a", scores=[30.0, 29.0])
    fused = linear([dense, sparse], weights=[1.0, 1.0])
    assert fused[0].id == "a"


def test_dbsf_handles_single_candidate_and_empty_lists():
    fused = dbsf([ranked("a"), []])
    assert [p.id for p in fused] == ["a"]


def test_ties_break_deterministically():
    fused = rrf([ranked("b"), ranked("a")])
    assert [p.id for p in fused] == ["a", "b"]
