"""The rules of `citeloom serve` below HTTP: one bearer-token check, and which tokens a server
accepts at start."""

from __future__ import annotations

import pytest

from citeloom.domain.errors import ConfigError
from citeloom.entrypoints.http import TOKEN_ENV, bearer_accepted, checked_token, serve_token


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
