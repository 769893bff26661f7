"""Checks of what a layer is built with: a device minigrad has, sizes that are whole numbers.

A layer built with a wrong argument (``Linear(2.5, 2)``, ``Conv2d(3, 4, 3, stride=0)``,
``device="cuda"``) is refused when it is built, with a message that names the argument, and
not rounded down or left to fail inside the first forward pass.
"""
import numpy as np


def check_device(device):
    """minigrad computes with NumPy on the CPU: accept device=None or "cpu" (torch's signature)."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise ValueError(f"minigrad runs on the CPU with NumPy; device {device!r} is not "
                         "available (use 'cpu' or leave the device out)")


def check_count(value, name, minimum=1):
    """A layer size (features, channels, kernel, stride...) as a Python int >= ``minimum``:
    ``Linear(2.5, 2)`` or ``Conv2d(3, 4, 3, stride=0)`` is refused at construction, not
    rounded down or left to fail inside the first forward pass."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        wanted = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{name} must be {wanted}, got {value}")
    return int(value)
