"""The JSON form of a watched run: findings plus the recorded statistics."""
import json
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


def run_to_dict(run, findings):
    """{"findings": [...], "healthy": bool, "summary": {...}, "run": {...}}."""
    from .text import loss_summary
    return plain({
        "healthy": not any(f.severity in ("warning", "error") for f in findings),
        "findings": [f.to_dict() for f in findings],
        "summary": loss_summary(run),
        "run": run.to_dict(),
    })


def write_json(run, findings, path):
    with open(path, "w") as handle:
        json.dump(run_to_dict(run, findings), handle, indent=1, allow_nan=False)
    return path
