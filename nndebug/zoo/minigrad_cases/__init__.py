"""Broken and healthy minigrad training runs (one module per case)."""
