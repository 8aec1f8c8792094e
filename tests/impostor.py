"""A listener on a port a ``citeloom serve`` announced: what another local user could run once
the server is gone. It records every byte it receives and answers every request with forged
results (and, when given the secret, with a valid proof: the control that shows a test of it
can fail)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FORGED = "[@forged2099fake, p. 42] FORGED RESULT"
Answer = Callable[[str, dict[str, str]], dict[str, Any] | None]  # None: never answer


def forged(_: str, __: dict[str, str]) -> dict[str, Any]:
    """Forged results for any request, with a proof of nothing."""
    return {
        "nonce": "ab" * 32,
        "proof": "cd" * 32,
        "query": "anything",
        "results": [{"citekey": "forged2099fake", "text": "FORGED RESULT"}],
        "rendered": FORGED,
        "confident": True,
    }


class Impostor:
    def __init__(self, port: int, answer: Answer = forged) -> None:
        self.received = bytearray()
        self.requests: list[str] = []
        self._answer = answer
        self._released = threading.Event()
        impostor = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as uvicorn

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                impostor.received += self.requestline.encode() + bytes(self.headers) + body
                impostor.requests.append(f"{self.command} {self.path}")
                answer = impostor._answer(self.path, dict(self.headers.items()))
                if answer is None:  # hang until the test ends
                    impostor._released.wait(30)
                    return
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _any

            def log_message(self, *_: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def saw(self, text: str) -> bool:
        return text.encode() in bytes(self.received)


@contextmanager
def listening(port: int = 0, answer: Answer = forged) -> Iterator[Impostor]:
    impostor = Impostor(port, answer)
    thread = threading.Thread(target=impostor.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield impostor
    finally:
        impostor._released.set()
        impostor.server.shutdown()
        impostor.server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
