"""Broken and healthy PyTorch training runs (one module per case)."""
