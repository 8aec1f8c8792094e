"""What both Qdrant adapters must agree on, written once: which conditions a search filter
means (``filter_plan``) and which payload indexes a collection carries (``payload_indexes``).
Each adapter only renders these in its own client's classes (``qdrant_edge`` for the embedded
engine, ``qdrant_client.models`` for a server)."""
