"""Conversion: Docling with a weight-free layout stage, and plain-text formats."""
