"""Runnable examples. ``python -m minigrad.examples.char_gpt`` trains a small character-level
GPT on a text shipped with the package, in minigrad and in PyTorch side by side.

``models`` holds model code written once for both frameworks: each builder takes a
framework namespace (``minigrad_framework()`` or ``torch_framework()``) and uses only
what the two spell alike.
"""
