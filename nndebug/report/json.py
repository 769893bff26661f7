"""The JSON form of a watched run: findings plus the recorded statistics."""
import json

from ..plain import plain


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
