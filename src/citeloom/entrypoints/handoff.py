"""Handing a CLI request to a running ``citeloom serve`` for the same config.

A cold ``citeloom query`` spends most of its time importing the index engine and loading the
embedding model; a server has both warm. So a running server announces itself in a small
file, and ``query``, ``answer`` and ``check`` send their request there first. Anything short
of a clean answer (no server, a stale file, another citeloom version, a config or
environment that differs from the server's, a refused token, a busy or timed-out server, an
error) falls back silently to doing the work in this process, which then reports errors the
usual way. The output is the same either way: the server answers the use case's response
model, the one ``--json`` prints, and the CLI makes its text from it as from its own.

The announcement lives in a folder only this user can enter (``$XDG_RUNTIME_DIR/citeloom``,
else ``/tmp/citeloom-<uid>``, mode 0700), named by a hash of the config's path, in a file of
mode 0600. It holds the address, the process id, hashes of the config file and of the
``CITELOOM_*`` environment (secrets left out), and a secret drawn afresh by each server run;
never a token.

Whoever answers on the announced port is not trusted for being there: a server killed with
``kill -9`` leaves its file behind, its pid comes back to life as another process, and any
local user may listen on the port it freed. So before anything of the request leaves (the
question, a draft, the bearer token), the listener must prove it holds the file's secret: the
CLI sends a fresh nonce, the server answers ``HMAC(secret, client nonce + server nonce)``
with a nonce of its own (so it never signs what a caller alone chose, and no answer recorded
once fits another hand-off), and the request follows on that same connection. Where the OS
says who owns the listening socket (Linux ``/proc/net/tcp``), it must also be this user's.
Each server run draws its own secret, so relaying the challenge to another citeloom server
gets a proof that does not fit. Cost: one round trip on an open loopback connection.

Kept to the standard library (``http.client``, not httpx) so that a handed-off query starts
in the time of the CLI's own imports.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import os
import secrets
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeloom import __version__
from citeloom.environment import (
    API_KEY_ENV,
    SERVE_TOKEN_ENV,
    citeloom_environment,
    runtime_dir,
    serve_token_from_environment,
)

_log = logging.getLogger(__name__)
CONNECT_S = 0.5  # a server that does not accept within this is treated as absent
PROOF_S = 2.0  # a listener that does not prove itself within this is treated as absent
PROOF_ROUTE = "/handoff"
NONCE_HEADER = "X-Citeloom-Nonce"
_NONCE_BYTES = 32
_CONTEXT = b"citeloom-handoff-1\n"  # what the proof is for: never valid as any other MAC
# settings read from the environment that are not citeloom's behaviour: secrets and where
# the config is (the config's own path and content are compared)
_NOT_COMPARED = {SERVE_TOKEN_ENV, API_KEY_ENV, "CITELOOM_CONFIG"}
_PROC_NET = {socket.AF_INET: Path("/proc/net/tcp"), socket.AF_INET6: Path("/proc/net/tcp6")}
_LISTEN = "0A"  # the TCP state of a listening socket in /proc/net/tcp


def _folder() -> Path:
    runtime = runtime_dir()
    if runtime is not None and runtime.is_dir():
        return runtime / "citeloom"
    return Path(tempfile.gettempdir()) / f"citeloom-{os.getuid()}"


def _private(path: Path, folder: bool = True) -> bool:
    """The folder (or file) is ours and no one else can write into it, nor read the file
    (else it is not trusted: its secret may be known)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if info.st_uid != os.getuid():
        return False
    if folder:
        return stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return stat.S_ISREG(info.st_mode) and not info.st_mode & (stat.S_IRWXG | stat.S_IRWXO)


def announcement(config: Path) -> Path:
    """Where a server for ``config`` announces itself."""
    key = hashlib.sha256(str(config.resolve()).encode()).hexdigest()[:20]
    return _folder() / f"serve-{key}.json"


def new_secret() -> bytes:
    """A server run's own secret, written only into its announcement."""
    return secrets.token_bytes(32)


def _fingerprint(config: Path) -> dict[str, str]:
    """What must match for the server to answer as this process would."""
    environment = sorted(
        (name, value)
        for name, value in citeloom_environment().items()
        if name.upper() not in _NOT_COMPARED
    )
    return {
        "version": __version__,
        "config_sha256": hashlib.sha256(config.read_bytes()).hexdigest(),
        "environment_sha256": hashlib.sha256(json.dumps(environment).encode()).hexdigest(),
    }


@contextlib.contextmanager
def announced(
    config: Path, host: str, port: int, timeout_s: float, secret: bytes
) -> Iterator[None]:
    """Announce a server for ``config`` on ``host:port``, holding ``secret``, while the block
    runs. Where the folder cannot be made private, the server simply is not announced."""
    path = announcement(config)
    written = False
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        if _private(path.parent):
            reach = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
            record = {
                "host": reach,
                "port": port,
                "pid": os.getpid(),
                "timeout_s": timeout_s,
                "secret": secret.hex(),
                **_fingerprint(config),
            }
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            # created 0600: the secret is never readable by anyone else, not even for a moment
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                out.write(json.dumps(record))
            os.replace(temporary, path)
            written = True
    except OSError as error:
        _log.debug("not announcing the server: %s", error)
    try:
        yield
    finally:
        if written:
            with contextlib.suppress(OSError, ValueError):
                if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                    path.unlink()


def _server(config: Path) -> dict[str, Any] | None:
    """The announcement of a live server for this config, as this process would run it."""
    path = announcement(config)
    if not _private(path.parent) or not _private(path, folder=False):
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("pid") and not _alive(int(record["pid"])):
            return None
        bytes.fromhex(str(record["secret"]))
        mine = _fingerprint(config)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if any(record.get(key) != value for key, value in mine.items()):
        _log.debug("a server runs for %s with other settings or version: not used", config)
        return None
    return dict(record)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ---------------------------------------------------------------------- the proof
def _mac(secret: bytes, client_nonce: bytes, server_nonce: bytes) -> str:
    return hmac.new(secret, _CONTEXT + client_nonce + server_nonce, hashlib.sha256).hexdigest()


def prove(secret: bytes, client_nonce: str) -> dict[str, str] | None:
    """The server's answer to a client's challenge: a fresh nonce of its own and the MAC over
    both, or None for a challenge that is not a nonce."""
    try:
        nonce = bytes.fromhex(client_nonce)
    except ValueError:
        return None
    if len(nonce) != _NONCE_BYTES:
        return None
    own = secrets.token_bytes(_NONCE_BYTES)
    return {"nonce": own.hex(), "proof": _mac(secret, nonce, own)}


def _proven(secret: bytes, client_nonce: bytes, answer: object) -> bool:
    """Whether the answer to the challenge ``client_nonce`` was made with ``secret``."""
    if not isinstance(answer, dict):
        return False
    try:
        own = bytes.fromhex(str(answer["nonce"]))
        given = str(answer["proof"])
    except (KeyError, ValueError):
        return False
    if len(own) != _NONCE_BYTES or own == client_nonce:  # a nonce echoed back proves nothing
        return False
    return hmac.compare_digest(given.encode(), _mac(secret, client_nonce, own).encode())


def _proc_address(family: int, ip: str) -> str:
    """``ip`` as /proc/net/tcp writes it: each 32-bit word in the host's byte order (little
    endian on every machine Linux runs citeloom on)."""
    raw = socket.inet_pton(family, ip)
    return "".join(raw[i : i + 4][::-1].hex().upper() for i in range(0, len(raw), 4))


def listener_owners(table: str, family: int, ip: str, port: int) -> set[int]:
    """The uids owning a listening socket that takes connections to ``ip:port``, read from a
    /proc/net/tcp(6) ``table``: one bound to that address or to the wildcard address."""
    wildcard = "::" if family == socket.AF_INET6 else "0.0.0.0"
    wanted = {_proc_address(family, ip), _proc_address(family, wildcard)}
    owners = set()
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8 or fields[3] != _LISTEN:
            continue
        address, _, hex_port = fields[1].partition(":")
        if address in wanted and int(hex_port, 16) == port:
            owners.add(int(fields[7]))
    return owners


def _someone_elses(connection: socket.socket) -> bool:
    """Whether the OS says the socket listening at the connection's far end belongs to
    another user (where it does not say, the proof alone decides)."""
    family = connection.family
    ip, port = connection.getpeername()[:2]
    table = _PROC_NET.get(family)
    if table is None or not ipaddress.ip_address(ip).is_loopback:
        return False
    try:
        owners = listener_owners(table.read_text(encoding="ascii"), family, ip, port)
    except (OSError, ValueError):
        return False
    return bool(owners - {os.getuid()})


def _challenge(connection: http.client.HTTPConnection, secret: bytes) -> bool:
    """Whether the listener proves it holds the announcement's secret. Sends nothing but a
    nonce; the request may then follow on this connection only."""
    nonce = secrets.token_bytes(_NONCE_BYTES)
    connection.request("GET", PROOF_ROUTE, headers={NONCE_HEADER: nonce.hex()})
    response = connection.getresponse()
    data = response.read(4096)
    if response.status != 200 or response.will_close:
        return False
    try:
        answer = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return _proven(secret, nonce, answer)


def hand_off(config: Path, route: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The server's JSON answer to ``POST route``, or None: do the work here."""
    server = _server(config)
    if server is None:
        return None
    connection = http.client.HTTPConnection(server["host"], int(server["port"]), CONNECT_S)
    try:
        connection.connect()
        if connection.sock is None or _someone_elses(connection.sock):
            _log.debug("the announced port is another user's: doing the work here")
            return None
        connection.sock.settimeout(PROOF_S)
        if not _challenge(connection, bytes.fromhex(server["secret"])):
            _log.debug("the listener on the announced port is not the server: working here")
            return None
        # proven: now send the request, and wait as long as a request may run
        connection.sock.settimeout(float(server.get("timeout_s", 60)) + 5)
        headers = {"Content-Type": "application/json"}
        if token := serve_token_from_environment():
            headers["Authorization"] = f"Bearer {token}"
        connection.request("POST", route, json.dumps(body).encode(), headers)
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            _log.debug("the server answered %s: doing the work here", response.status)
            return None
        answer = json.loads(data)
        if not isinstance(answer, dict):
            return None
        _log.info("answered by citeloom serve at %s:%s", server["host"], server["port"])
        return answer
    except (OSError, ValueError, http.client.HTTPException) as error:
        _log.debug("no answer from the server (%s): doing the work here", error)
        return None
    finally:
        connection.close()
