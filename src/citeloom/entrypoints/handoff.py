"""Handing a CLI request to a running ``citeloom serve`` for the same config.

A cold ``citeloom query`` spends most of its time importing the index engine and loading the
embedding model; a server has both warm. So a running server announces itself in a small
file, and ``query``, ``answer`` and ``check`` send their request there first. Anything short
of a clean answer (no server, a stale file, another citeloom version, a config or
environment that differs from the server's, a refused token, a busy or timed-out server, an
error) falls back silently to doing the work in this process, which then reports errors the
usual way. The output is the same either way: the server renders the text with the CLI's own
renderers, and ``--json`` is the same response model.

The announcement lives in a folder only this user can enter (``$XDG_RUNTIME_DIR/citeloom``,
else ``/tmp/citeloom-<uid>``), named by a hash of the config's path. It holds the address,
the process id, the working directory (rendered text shows files relative to it) and hashes
of the config file and of the ``CITELOOM_*`` environment (secrets left out); never a token.

Kept to the standard library (``http.client``, not httpx) so that a handed-off query starts
in the time of the CLI's own imports.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import logging
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeloom import __version__

_log = logging.getLogger(__name__)
CONNECT_S = 0.5  # a server that does not accept within this is treated as absent
# settings read from the environment that are not citeloom's behaviour: secrets and where
# the config is (the config's own path and content are compared)
_NOT_COMPARED = {"CITELOOM_SERVE_TOKEN", "CITELOOM_QDRANT_API_KEY", "CITELOOM_CONFIG"}
TOKEN_ENV = "CITELOOM_SERVE_TOKEN"


def _folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "citeloom"
    return Path(tempfile.gettempdir()) / f"citeloom-{os.getuid()}"


def _private(folder: Path) -> bool:
    """The folder is ours and no one else can write into it (else it is not trusted)."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def announcement(config: Path) -> Path:
    """Where a server for ``config`` announces itself."""
    key = hashlib.sha256(str(config.resolve()).encode()).hexdigest()[:20]
    return _folder() / f"serve-{key}.json"


def _fingerprint(config: Path) -> dict[str, str]:
    """What must match for the server to answer as this process would."""
    environment = sorted(
        (name, value)
        for name, value in os.environ.items()
        if name.upper().startswith("CITELOOM_") and name.upper() not in _NOT_COMPARED
    )
    return {
        "version": __version__,
        "cwd": os.getcwd(),  # the text shows files relative to it
        "config_sha256": hashlib.sha256(config.read_bytes()).hexdigest(),
        "environment_sha256": hashlib.sha256(json.dumps(environment).encode()).hexdigest(),
    }


@contextlib.contextmanager
def announced(config: Path, host: str, port: int, timeout_s: float) -> Iterator[None]:
    """Announce a server for ``config`` on ``host:port`` while the block runs. Where the
    folder cannot be made private, the server simply is not announced."""
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
                **_fingerprint(config),
            }
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            temporary.write_text(json.dumps(record), encoding="utf-8")
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
    if not _private(path.parent):
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("pid") and not _alive(int(record["pid"])):
            return None
        mine = _fingerprint(config)
    except (OSError, ValueError, TypeError):
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


def hand_off(config: Path, route: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The server's JSON answer to ``POST route``, or None: do the work here."""
    server = _server(config)
    if server is None:
        return None
    headers = {"Content-Type": "application/json"}
    if token := os.environ.get(TOKEN_ENV):
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection(server["host"], int(server["port"]), CONNECT_S)
    try:
        connection.connect()
        if connection.sock is not None:  # connected: now wait as long as a request may run
            connection.sock.settimeout(float(server.get("timeout_s", 60)) + 5)
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
