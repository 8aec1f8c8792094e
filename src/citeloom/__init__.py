"""citeloom: citation-aware scholarly ingest and retrieval backed by Qdrant."""

__version__ = "0.1.0"
