"""Plain values: any mix of dicts, lists, NumPy values and floats as strict-JSON values.

Findings, records and every report turn their numbers into plain values here; it sits at the
bottom of the import flow (it imports nothing from nndebug), so anything may use it.
"""
import math

import numpy as np


def plain(value):
    """Any mix of dicts, lists, NumPy values and floats as strict-JSON values (NaN -> "nan")."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    return value
