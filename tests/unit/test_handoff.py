"""The CLI hands a request only to a listener that proves it is the announced server: a
runtime file left by a killed server, its pid reused and its port taken by someone else must
leak neither the question nor the bearer token, and forged results are never used."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from citeloom.entrypoints import handoff
from citeloom.environment import SERVE_TOKEN_ENV
from tests.impostor import FORGED, listening

QUESTION = "how fast do restored salt marshes accrete sediment"
TOKEN = "s3cret-bearer-token"


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv(SERVE_TOKEN_ENV, TOKEN)
    monkeypatch.setattr(handoff, "PROOF_S", 0.5)
    (tmp_path / "refs.json").write_text("[]", encoding="utf-8")
    path = tmp_path / "citeloom.toml"
    path.write_text(
        '[project."papers"]\ncollection = "proj-papers"\nreferences_json = "refs.json"\n',
        encoding="utf-8",
    )
    return path


def proving(secret: bytes, results: str = "REAL RESULT"):
    """A listener holding the secret: it proves itself, then answers."""

    def answer(path: str, headers: dict[str, str]) -> dict:
        if path == handoff.PROOF_ROUTE:
            return handoff.prove(secret, headers.get(handoff.NONCE_HEADER, "")) or {}
        return {"rendered": results}

    return answer


def test_a_listener_on_a_dead_servers_port_gets_neither_question_nor_token(config):
    secret = handoff.new_secret()  # the killed server's; the impostor cannot read it
    with listening() as impostor, handoff.announced(config, "127.0.0.1", impostor.port, 5, secret):
        # the announcement names a live pid (this process: a pid reused) and the impostor's port
        assert handoff.hand_off(config, "/query", {"query": QUESTION}) is None
    assert impostor.requests == [f"GET {handoff.PROOF_ROUTE}"]  # a nonce, nothing more
    assert not impostor.saw(QUESTION) and not impostor.saw("marshes") and not impostor.saw(TOKEN)


def test_the_server_holding_the_secret_gets_the_request(config):
    secret = handoff.new_secret()
    with (
        listening(answer=proving(secret)) as server,
        handoff.announced(config, "127.0.0.1", server.port, 5, secret),
    ):
        answer = handoff.hand_off(config, "/query", {"query": QUESTION})
    assert answer == {"rendered": "REAL RESULT"}
    assert server.requests == [f"GET {handoff.PROOF_ROUTE}", "POST /query"]
    assert server.saw(QUESTION) and server.saw(f"Bearer {TOKEN}")


def test_a_proof_made_with_another_secret_replayed_echoed_or_never_given_is_refused(config):
    secret, other = handoff.new_secret(), handoff.new_secret()
    recorded: list[dict] = []

    def replaying(path: str, headers: dict[str, str]) -> dict:
        # a proof recorded from the real server's earlier answer to another nonce
        if not recorded:
            recorded.append(handoff.prove(secret, os.urandom(32).hex()) or {})
        return recorded[0]

    def echoing(path: str, headers: dict[str, str]) -> dict:
        nonce = headers.get(handoff.NONCE_HEADER, "")
        # the client's own nonce sent back as the server's: the MAC is computable by no one
        # without the secret anyway, but an echo must not count as a fresh server nonce
        return {"nonce": nonce, "proof": "00" * 32}

    def silent(path: str, headers: dict[str, str]) -> None:
        return None  # never answers: given up after PROOF_S

    for answer in (proving(other), replaying, echoing, silent):
        with (
            listening(answer=answer) as impostor,
            handoff.announced(config, "127.0.0.1", impostor.port, 5, secret),
        ):
            assert handoff.hand_off(config, "/query", {"query": QUESTION}) is None
        assert not impostor.saw(QUESTION) and not impostor.saw(TOKEN)


def test_the_announcement_is_private_and_one_others_can_read_is_not_trusted(config):
    secret = handoff.new_secret()
    with (
        listening(answer=proving(secret)) as server,
        handoff.announced(config, "127.0.0.1", server.port, 5, secret),
    ):
        path = handoff.announcement(config)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        path.chmod(0o644)  # its secret may be known: the file proves nothing any more
        assert handoff.hand_off(config, "/query", {"query": QUESTION}) is None
    assert not server.saw(QUESTION)
    assert not path.exists()  # taken back when the server stops


def test_a_stale_announcement_of_a_dead_pid_is_not_even_tried(config):
    secret = handoff.new_secret()
    with listening() as impostor, handoff.announced(config, "127.0.0.1", impostor.port, 5, secret):
        path = handoff.announcement(config)
        path.write_text(path.read_text().replace(f'"pid": {os.getpid()}', '"pid": 999999999'))
        assert handoff.hand_off(config, "/query", {"query": QUESTION}) is None
    assert impostor.requests == []


# what /proc/net/tcp says of two listeners on port 8765 (0x223D): root's on 127.0.0.1, and
# uid 1001's on the wildcard address; an established connection of uid 1002 on the port
PROC_TCP = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1603 1
   1: 00000000:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 1604 1
   2: 0100007F:223D 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1002        0 1605 1
   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 1606 1
"""
PROC_TCP6 = (
    "  sl  local_address                         remote_address                        st\n"
    "   0: 00000000000000000000000001000000:223D 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1004        0 1700 1\n"
)


def test_the_owner_of_the_listening_socket_is_read_as_linux_writes_it():
    assert handoff.listener_owners(PROC_TCP, socket.AF_INET, "127.0.0.1", 8765) == {0, 1001}
    assert handoff.listener_owners(PROC_TCP, socket.AF_INET, "127.0.0.1", 8080) == {1003}
    assert handoff.listener_owners(PROC_TCP, socket.AF_INET, "127.0.0.2", 8080) == set()
    assert handoff.listener_owners(PROC_TCP6, socket.AF_INET6, "::1", 8765) == {1004}


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux only: /proc/net/tcp")
def test_a_listener_of_this_user_is_found_as_this_users():
    with listening() as mine:
        table = Path("/proc/net/tcp").read_text(encoding="ascii")
        assert handoff.listener_owners(table, socket.AF_INET, "127.0.0.1", mine.port) == {
            os.getuid()
        }


def test_forged_output_never_reaches_the_cli(config, capsys):
    """Through the CLI's own path: no server proves itself, so the work is done here (and
    fails here, on this config, with its own message) and the forged text is never printed."""
    from typer.testing import CliRunner

    from citeloom.entrypoints.cli import app

    secret = handoff.new_secret()
    with listening() as impostor, handoff.announced(config, "127.0.0.1", impostor.port, 5, secret):
        done = CliRunner().invoke(app, ["query", QUESTION, "-p", "nope", "-c", str(config)])
    assert FORGED not in done.output and "unknown project 'nope'" in done.output
    assert not impostor.saw(QUESTION)
