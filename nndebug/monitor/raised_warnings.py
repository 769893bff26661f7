"""Warnings the framework raises while a run is watched, kept with their step and module.

A warning such as torch's "Using a target size that is different to the input size" is
printed once and scrolls away. While the monitor is open, every warning that Python shows
is also written down (``RaisedWarning``: the step it came in and the module whose forward
was running, found on the call stack) and shown as it always is: watching changes nothing
the user sees. ``close`` puts the previous ``warnings.showwarning`` back.
"""
import sys
import warnings

from ..observed import RaisedWarning

MAX_KEPT = 50                # warnings kept at most (a warning in every step repeats itself)
STACK_DEPTH = 40             # frames searched for the module whose forward was running


class WarningCapture:
    def __init__(self, observed, current_step, module_names):
        """``current_step()``: the step being trained; ``module_names``: {id(module): name}
        of the model's modules (a module outside the model is named by its class)."""
        self.observed, self.current_step, self.module_names = observed, current_step, module_names
        self._previous = warnings.showwarning
        warnings.showwarning = self._show

    def close(self):
        if warnings.showwarning == self._show:     # not replaced by someone after us
            warnings.showwarning = self._previous

    def _show(self, message, category, filename, lineno, file=None, line=None):
        try:
            if len(self.observed.warnings) < MAX_KEPT:
                self.observed.warnings.append(RaisedWarning(
                    step=self.current_step(), category=category.__name__, message=str(message),
                    where=self._running_module(), filename=str(filename), lineno=int(lineno)))
        except Exception:        # noting a warning must never break the user's step
            pass
        self._previous(message, category, filename, lineno, file, line)

    def _running_module(self):
        """The innermost module whose forward is on the call stack (its name in the model,
        or its class when it is not part of the model), or ""."""
        frame = sys._getframe(2)
        for _ in range(STACK_DEPTH):
            if frame is None:
                break
            owner = frame.f_locals.get("self")
            if owner is not None and frame.f_code.co_name == "forward" and \
                    hasattr(owner, "named_modules"):
                name = self.module_names.get(id(owner))
                return (name or "(model)") if name is not None else type(owner).__name__
            frame = frame.f_back
        return ""
