"""citeloom: citation-aware scholarly ingest and retrieval backed by Qdrant."""

import logging as _logging
import sys as _sys

import structlog as _structlog

__version__ = "0.1.0"

# Until an entry point sets the level (-v), services embedded in another program (a
# benchmark, a notebook, the tests) log warnings only: structlog's own default prints every
# level, debug included, to stdout.
if not _structlog.is_configured():
    _structlog.configure(
        wrapper_class=_structlog.make_filtering_bound_logger(_logging.WARNING),
        logger_factory=_structlog.PrintLoggerFactory(file=_sys.stderr),
    )
