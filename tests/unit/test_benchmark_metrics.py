"""The benchmark's metrics, checked by hand so the reported figures can be trusted."""

import math

import pytest
from benchmarks.metrics import average_precision_at, hit_at, ndcg_at, recall_at, reciprocal_rank_at


def test_ndcg_is_one_for_the_ideal_order_and_less_otherwise():
    gains = {"a": 3.0, "b": 1.0}
    assert ndcg_at(["a", "b", "x"], gains) == pytest.approx(1.0)
    swapped = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert ndcg_at(["b", "a"], gains) == pytest.approx(swapped)
    assert ndcg_at(["x"], gains) == 0.0


def test_average_precision_and_recall():
    assert average_precision_at(["a", "x", "b"], {"a", "b"}) == pytest.approx((1 + 2 / 3) / 2)
    assert recall_at(["a", "x"], {"a", "b"}) == 0.5
    assert recall_at(["a", "b"], {"a", "b"}, k=1) == 0.5


def test_hits_and_reciprocal_rank():
    assert reciprocal_rank_at([False, False, True]) == pytest.approx(1 / 3)
    assert reciprocal_rank_at([False] * 12 + [True]) == 0.0
    assert hit_at([False, True], 1) == 0.0 and hit_at([False, True], 5) == 1.0
