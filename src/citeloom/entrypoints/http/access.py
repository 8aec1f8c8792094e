"""Who may call ``citeloom serve``: loopback by default; any other address needs a bearer
token from the environment (read once, by ``config``), which every API route and /mcp/ then
require through one check (``bearer_accepted``)."""

from __future__ import annotations

import hmac
import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from citeloom.domain.errors import ConfigError
from citeloom.environment import SERVE_TOKEN_ENV as TOKEN_ENV
from citeloom.environment import serve_token_from_environment

__all__ = [
    "NOT_ADDRESSED_HERE",
    "TOKEN_ENV",
    "addressed_to_loopback",
    "bearer_accepted",
    "checked_token",
    "is_loopback",
    "serve_token",
]
# What a tokenless loopback server answers (403) to a request naming another host.
NOT_ADDRESSED_HERE = (
    "this server answers only requests addressed to this machine (Host: 127.0.0.1, localhost "
    "or [::1]); open it as http://127.0.0.1:PORT/, or set a bearer token to serve other names"
)
# A token is sent in a header: visible ASCII only, which every client sends byte for byte.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_token(token: str | None) -> str | None:
    """The token, or ``ConfigError`` when HTTP headers cannot carry it alike from every
    client: a non-ASCII character is sent as UTF-8 by some and as Latin-1 by others (or not
    at all), so such a token is refused at start rather than half-working."""
    if token is not None and not _TOKEN_CHARS.fullmatch(token):
        raise ConfigError(
            f"{TOKEN_ENV} holds a character an HTTP header cannot carry reliably (a non-ASCII "
            "letter, a space or a control character). Set a token of ASCII letters, digits "
            f"and punctuation, e.g. export {TOKEN_ENV}=\"$(python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))')\"."
        )
    return token


def serve_token(host: str) -> str | None:
    """The bearer token requests must carry, or ``ConfigError`` when a non-loopback bind
    has none (the API reads the whole library) or it cannot be sent in a header."""
    token = checked_token(serve_token_from_environment())
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"--host {host} is reachable from other machines: set a bearer token in the "
            f"{TOKEN_ENV} environment variable first (clients send 'Authorization: Bearer "
            "TOKEN'), or bind 127.0.0.1."
        )
    return token


def bearer_accepted(scope: Mapping[str, Any], token: str | None) -> bool:
    """The one check of a request's credentials, for every API route and for /mcp/: no
    token configured lets everything through (a loopback bind); else the request's
    ``Authorization`` header must name the Bearer scheme (in any case: ``bearer`` too) and
    carry the token, compared byte for byte in constant time."""
    if token is None:
        return True
    header = next((v for k, v in scope.get("headers") or () if k.lower() == b"authorization"), b"")
    scheme, _, given = bytes(header).strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token.encode())


def addressed_to_loopback(scope: Mapping[str, Any]) -> bool:
    """Whether a request names this machine in its ``Host`` header (localhost, 127.x or
    [::1], any port). Without a token, a loopback server answers only such requests: a web
    page whose name an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own name as
    Host, and would otherwise read the library through the visitor's browser."""
    header = next((v for k, v in scope.get("headers") or () if k.lower() == b"host"), b"")
    host = bytes(header).decode("latin-1").strip().lower()
    if host.startswith("["):  # [::1]:8765
        name = host[1 : host.find("]")] if "]" in host else host
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return is_loopback(name)
