"""Adapters: one module per real component behind a port."""
