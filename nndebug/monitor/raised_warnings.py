"""Warnings the framework raises while a run is watched, kept with their step and module.

A warning such as torch's "Using a target size that is different to the input size" is
printed once and scrolls away. While the monitor is open, every warning that Python shows
is also written down (``RaisedWarning``: the step it came in and the module whose forward
was running, found on the call stack) and shown as it always is: watching changes nothing
the user sees. ``close`` puts the previous ``warnings.showwarning`` back.

Two readings at the moment a warning is shown (real-bug batch 333: a CapsNet's routing
softmax called without dim, higgsfield/Capsule-Network-Tutorial#7):
- the user's own line. torch points a warning at its caller with ``stacklevel``; a torch
  function mode of the monitor's sits between the user's call and torch's function, so the
  warning pointed into nndebug's files (attention_capture.py, for F.softmax). A warning
  located in nndebug is moved to the first frame outside torch and nndebug, for the record
  and for what the user sees.
- the number of dimensions of the tensor whose softmax had no dim (torch's
  ``_get_softmax_dim`` holds it as ``ndim``): the rule tells an implicit choice that is
  likely wrong (3 dimensions or more) from the 2-D case, where torch's choice is the rows.
"""
import os
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
            filename, lineno, dims = _call_site(filename, lineno)
            if len(self.observed.warnings) < MAX_KEPT:
                self.observed.warnings.append(RaisedWarning(
                    step=self.current_step(), category=category.__name__, message=str(message),
                    where=self._running_module(), filename=str(filename), lineno=int(lineno),
                    input_dims=dims))
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


_SKIPPED_DIRS = None


def _skipped_dirs():
    """The folders of torch and nndebug (the origin watch's, ``nonfinite_origins._own_dirs``)
    and the warnings module: the user's line is the first frame outside them."""
    global _SKIPPED_DIRS
    if _SKIPPED_DIRS is None:
        from .nonfinite_origins import _own_dirs
        _SKIPPED_DIRS = _own_dirs() + (os.path.abspath(warnings.__file__),)
    return _SKIPPED_DIRS


def _call_site(filename, lineno):
    """(filename, line, dims): the warning's location, moved to the user's line when torch
    pointed it into nndebug (a function mode between the call and torch), and the number of
    dimensions of a softmax input whose dim was left implicit (-1 for other warnings)."""
    dims, user, inside = -1, None, str(filename).startswith(_skipped_dirs()[1])
    frame = sys._getframe(2)
    for _ in range(STACK_DEPTH):
        if frame is None:
            break
        code = frame.f_code
        if code.co_name == "_get_softmax_dim" and dims < 0:
            value = frame.f_locals.get("ndim")
            dims = int(value) if isinstance(value, int) else dims
        elif user is None and not os.path.abspath(code.co_filename).startswith(
                _skipped_dirs()) and not code.co_filename.startswith("<"):
            user = (code.co_filename, frame.f_lineno)
        if user is not None and (dims >= 0 or not inside):
            break
        frame = frame.f_back
    if inside and user is not None:
        filename, lineno = user
    return filename, lineno, dims
