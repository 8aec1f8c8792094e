"""Application services (use cases): ingest, query, validate, inspect. They speak only to ports."""
