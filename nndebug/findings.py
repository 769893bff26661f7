"""Finding: one named problem, with the numbers behind it and the first fix to try."""
from dataclasses import dataclass, field

from .plain import plain

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass
class Finding:
    code: str                 # a code from API.md, e.g. "DEAD_RELU"
    severity: str             # "info" | "warning" | "error"
    where: str = ""           # qualified module or parameter name, or ""
    step: "int | None" = None  # first step it was seen, or None
    message: str = ""         # one sentence a learner understands
    evidence: dict = field(default_factory=dict)  # the numbers behind it
    fix: str = ""             # the first thing to try

    def __post_init__(self):
        if self.severity not in SEVERITY_ORDER:
            raise ValueError(f"severity must be one of {sorted(SEVERITY_ORDER)}, got {self.severity!r}")

    def to_dict(self):
        return {"code": self.code, "severity": self.severity, "where": self.where, "step": self.step,
                "message": self.message, "evidence": plain(self.evidence), "fix": self.fix}

    def headline(self):
        """'WARNING DEAD_RELU [2] (step 4)': severity, code, where and step on one line."""
        where = f" [{self.where}]" if self.where else ""
        step = f" (step {self.step})" if self.step is not None else ""
        return f"{self.severity.upper():7s} {self.code}{where}{step}"

    def __str__(self):
        return f"{self.headline()}: {self.message}"


def sort_findings(findings):
    """Most severe first; stable otherwise (the order rules produced them in)."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])
