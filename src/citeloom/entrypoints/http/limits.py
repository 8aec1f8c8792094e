"""The body size limit of ``citeloom serve``: [serve] max_body_bytes, enforced before any
route or FastAPI's parser reads the body."""

from __future__ import annotations

from typing import Any

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
