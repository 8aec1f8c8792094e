"""The rules of `citeloom serve` below HTTP: one bearer-token check, which tokens a server
accepts at start, the [serve] settings, a request's time limit, and the embedded index
making way for a waiting process between two units of work."""

from __future__ import annotations

import fcntl
import os
import threading

import anyio
import pytest

from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError, IndexBusy, TimeLimitExceeded
from citeloom.entrypoints.http import TOKEN_ENV, bearer_accepted, checked_token, serve_token
from citeloom.entrypoints.time_limit import Deadline, within


def scope(*headers: tuple[bytes, bytes]) -> dict:
    return {"type": "http", "headers": list(headers)}


def test_one_bearer_check_takes_the_scheme_in_any_case_and_the_token_byte_for_byte():
    token = "s3cret-token"
    for scheme in (b"Bearer", b"bearer", b"BEARER", b"bEaReR"):
        assert bearer_accepted(scope((b"authorization", scheme + b" s3cret-token")), token)
    assert bearer_accepted(scope((b"authorization", b"Bearer   s3cret-token ")), token)
    for wrong in (b"Bearer s3cret-tokeN", b"Bearer s3cret-token2", b"Basic s3cret-token", b""):
        assert not bearer_accepted(scope((b"authorization", wrong)), token)
    assert not bearer_accepted(scope((b"authorization", b"Bearer s3cr\xc3\xa9t")), token)
    assert not bearer_accepted(scope(), token)
    assert bearer_accepted(scope(), None)  # no token configured: a loopback bind


def test_a_token_headers_cannot_carry_is_refused_at_start_without_echoing_it(monkeypatch):
    assert checked_token("A-Za-z0.9_~+/=") == "A-Za-z0.9_~+/="
    for bad in ("tökén", "two words", "tab\there", "€uro"):
        monkeypatch.setenv(TOKEN_ENV, bad)
        with pytest.raises(ConfigError) as refused:
            serve_token("127.0.0.1")
        assert TOKEN_ENV in str(refused.value) and "ASCII" in str(refused.value)
        assert bad not in str(refused.value)


def test_serve_settings_are_validated(tmp_path):
    config = tmp_path / "citeloom.toml"
    config.write_text("[serve]\ntimeout_s = 2.5\nmax_body_bytes = 2048\n", encoding="utf-8")
    settings = load_settings(config)
    assert (settings.serve.timeout_s, settings.serve.max_body_bytes) == (2.5, 2048)
    for bad in ("timeout_s = 0", "timeout_s = -1", "max_body_bytes = 10", "timeout_z = 3"):
        config.write_text(f"[serve]\n{bad}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as refused:
            load_settings(config)
        assert f"serve.{bad.split()[0]}" in str(refused.value)


def test_a_call_over_its_time_is_given_up_and_its_worker_told_so():
    release, seen = threading.Event(), threading.Event()
    deadline = Deadline(0.2)
    told: list[bool] = []

    def work() -> str:
        release.wait(60)  # a unit of work that outlasts the deadline
        told.append(deadline.expired())  # what the worker sees at its next check
        seen.set()
        return "late"

    with pytest.raises(TimeLimitExceeded):
        anyio.run(within, deadline, work)
    release.set()
    assert seen.wait(60) and told == [True]
    assert anyio.run(within, Deadline(60), lambda: "on time") == "on time"


@pytest.mark.real
def test_the_embedded_index_makes_way_only_for_a_waiting_process(tmp_path):
    from citeloom.adapters.qdrant.core import QdrantIndex
    from citeloom.adapters.qdrant.edge_engine import EdgeEngine

    folder = tmp_path / "q"
    server = QdrantIndex(EdgeEngine(folder, busy_timeout_s=10, yield_to_waiters=True))
    server.ensure_collection("c", "m", 4, project="p")
    assert server.make_way(10) is False  # nobody waits: the shard stays open
    with pytest.raises(IndexBusy):
        QdrantIndex(EdgeEngine(folder)).collection_info("c")
    waiting = os.open(folder / "c.wait", os.O_RDWR | os.O_CREAT)
    fcntl.flock(waiting, fcntl.LOCK_SH)  # what a waiting ingest holds
    try:
        assert server.make_way(10) is True
    finally:
        os.close(waiting)
    other = QdrantIndex(EdgeEngine(folder))  # gets the shard at once
    assert other.collection_info("c").embed_model == "m"
    other.close()
    assert server.collection_info("c").embed_model == "m"  # reopened on its next use
    server.close()
