"""The quality tests' floors (tests/quality/floors.py): a figure that crosses its stored bound
fails, naming the figure, the bound, the stored figure and the items whose outcome changed;
the regeneration switch rewrites the stored results instead."""

from __future__ import annotations

import json

import pytest

from tests.quality import floors
from tests.quality.floors import share

HITS = {"q1": True, "q2": True, "q3": True, "q4": True, "q5": False}
OUTCOMES = {"q1": "rank 1", "q2": "rank 1", "q3": "rank 2", "q4": "rank 1", "q5": "missed"}


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """The stored results of an area 'demo' written from today's outcomes by the switch."""
    monkeypatch.setattr(floors, "STORED", tmp_path)
    monkeypatch.setenv("CITELOOM_REGENERATE", "1")
    figures = [share("hit@1", HITS), share("missed", {"q5": True}, lower=True, margin=0)]
    floors.hold("demo", "a demo area", figures, OUTCOMES, "tests/quality/test_demo.py")
    monkeypatch.delenv("CITELOOM_REGENERATE")
    return tmp_path / "demo.json"


def test_the_switch_stores_outcomes_and_a_floor_a_little_under_todays_figure(stored):
    data = json.loads(stored.read_text(encoding="utf-8"))
    assert data["outcomes"] == OUTCOMES
    line = data["floors"]["hit@1"]
    assert line["today"] == pytest.approx(0.8) and line["of"] == 5
    assert 0.55 < line["at_least"] < 0.8  # one item of five below today's
    assert data["regenerate"].startswith("CITELOOM_REGENERATE=1 ")
    assert data["regenerate"].endswith("tests/quality/test_demo.py")


def test_the_same_figures_pass_and_one_item_lost_stays_above_the_floor(stored):
    floors.hold("demo", "", [share("hit@1", HITS), share("missed", {"q5": True}, lower=True)],
                OUTCOMES, "x")  # fmt: skip
    lost = HITS | {"q4": False}
    floors.hold("demo", "", [share("hit@1", lost), share("missed", {"q5": True}, lower=True)],
                OUTCOMES | {"q4": "rank 2"}, "x")  # fmt: skip


def test_a_figure_under_its_floor_fails_naming_it_and_the_items_that_regressed(stored):
    fallen = {"q1": True, "q2": True, "q3": False, "q4": False, "q5": False}
    now = OUTCOMES | {"q3": "rank 7", "q4": "missed"}
    with pytest.raises(pytest.fail.Exception) as failed:
        floors.hold("demo", "", [share("hit@1", fallen), share("missed", {"q5": True},
                    lower=True)], now, "tests/quality/test_demo.py")  # fmt: skip
    message = str(failed.value)
    assert "hit@1 fell to 0.400 (2/5) from 0.800 (4/5), under its floor 0.6" in message
    assert "q3: rank 2 -> rank 7" in message and "q4: rank 1 -> missed" in message
    assert "q5" not in message  # missed before as now: not what changed
    assert "CITELOOM_REGENERATE=1 .venv/bin/python -m pytest -m quality" in message


def test_a_count_that_must_stay_low_fails_over_its_ceiling(tmp_path, monkeypatch):
    monkeypatch.setattr(floors, "STORED", tmp_path)
    matched = {"a.pdf": "right (a2020)", "b.pdf": "right (b2021)", "c.pdf": "unmatched (None)"}
    wrong = dict.fromkeys(matched, False)
    monkeypatch.setenv("CITELOOM_REGENERATE", "1")
    floors.hold("demo", "", [share("wrong", wrong, lower=True, margin=0)], matched, "x")
    monkeypatch.delenv("CITELOOM_REGENERATE")
    with pytest.raises(pytest.fail.Exception) as failed:
        floors.hold(
            "demo",
            "",
            [share("wrong", wrong | {"b.pdf": True}, lower=True, margin=0)],
            matched | {"b.pdf": "wrong (a2020)"},
            "x",
        )
    message = str(failed.value)
    assert "wrong rose to 0.333 (1/3) from 0.000 (0/3), over its ceiling 0.0000" in message
    assert "b.pdf: right (b2021) -> wrong (a2020)" in message


def test_a_truth_file_that_changed_is_named_rather_than_compared(stored):
    with pytest.raises(pytest.fail.Exception, match="measured over 6 items, stored over 5"):
        floors.hold("demo", "", [share("hit@1", HITS | {"q6": True}),
                    share("missed", {"q5": True}, lower=True)], OUTCOMES, "x")  # fmt: skip


def test_without_stored_results_the_failure_says_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setattr(floors, "STORED", tmp_path)
    monkeypatch.delenv("CITELOOM_REGENERATE", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"demo\.json is not there\..*REGENERATE=1"):
        floors.hold("demo", "", [share("hit@1", HITS)], OUTCOMES, "x")
