"""What ``citeloom serve`` refuses before any route reads a request: a body over [serve]
max_body_bytes, and (without a token) a request not addressed to this machine."""

from __future__ import annotations

from typing import Any

from citeloom.entrypoints.http.access import NOT_ADDRESSED_HERE, addressed_to_loopback
from citeloom.entrypoints.http.errors import refusal


class BodyLimit:
    """Reads a request's whole body before the app does, up to [serve] max_body_bytes: a
    larger one is answered 413 in the ErrorResponse shape and never parsed. Every route is
    behind it, /mcp/ included."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before sending its body: no one to answer
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        first: list[dict[str, Any]] = [{"type": "http.request", "body": b"".join(chunks)}]

        async def replay() -> Any:
            return first.pop() if first else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Any, receive: Any, send: Any) -> None:
        response = refusal(
            413,
            f"the request body is larger than [serve] max_body_bytes = {self.max_bytes} bytes; "
            "send less at a time (a draft in parts) or raise the limit",
        )
        await response(scope, receive, send)


class LoopbackHost:
    """Installed when ``serve`` runs on loopback without a token: every request (page, API,
    /docs, /mcp/) must name this machine in its Host header, else it is answered 403. The
    token is the guard off loopback; on loopback this stops DNS rebinding."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or addressed_to_loopback(scope):
            await self.app(scope, receive, send)
            return
        response = refusal(403, NOT_ADDRESSED_HERE)
        await response(scope, receive, send)
