"""Logging: the standard library's, to stderr, so stdout stays clean for results and ``--json``.

Default level is WARNING; ``-v`` shows INFO (per-document progress, no document text),
``-vv`` DEBUG. Docling's own chatter is held back unless ``-vv``. Services attach their
fields as ``extra={"fields": {...}}``; they are printed as ``key=value`` after the message.
(structlog did this before; importing it imports rich, a quarter of a cold query's start.)
"""

from __future__ import annotations

import logging
import sys


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = getattr(record, "fields", None) or {}
        return " ".join([line, *(f"{k}={v}" for k, v in fields.items() if v is not None)])


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object (``--progress json``: every stderr line is one)."""

    def format(self, record: logging.LogRecord) -> str:
        import json

        fields = getattr(record, "fields", None) or {}
        data = {
            "event": "log",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **{k: v for k, v in fields.items() if v is not None},
        }
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


def log_as_json() -> None:
    """The root logger's lines on stderr as JSON objects from now on."""
    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonFormatter())


def configure_logging(verbose: int = 0) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        KeyValueFormatter("%(asctime)s [%(levelname)s] %(message)s", datefmt="%H:%M:%S")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # citeloom reports every failed or partial conversion itself (its line, the audit); Docling's
    # own ERROR lines (e.g. "Output queue closed" when a time limit stops its pipeline) would
    # only repeat it, and would land in a script's `--json 2>&1`
    noisy = logging.CRITICAL if verbose < 2 else logging.DEBUG
    for name in ("docling", "docling_core", "docling_parse", "httpx", "fastembed", "RapidOCR"):
        logging.getLogger(name).setLevel(noisy)
