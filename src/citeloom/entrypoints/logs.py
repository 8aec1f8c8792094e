"""Logging: structlog to stderr, so stdout stays clean for results and ``--json``.

Default level is WARNING; ``-v`` shows INFO (per-document progress, no document text),
``-vv`` DEBUG. Docling's own chatter is held at ERROR unless ``-vv``.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(verbose: int = 0) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="%H:%M:%S"),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    noisy = logging.ERROR if verbose < 2 else logging.DEBUG
    for name in ("docling", "docling_core", "docling_parse", "httpx", "fastembed", "RapidOCR"):
        logging.getLogger(name).setLevel(noisy)
