"""Long runs: a history under a memory budget, saved while training, resumed from checkpoints.

    mon = nd.watch(model, opt, max_history_mb=64,          # the history never grows above this
                   save_to="run.nndebug", save_every_s=60)  # atomic saves while it trains
    ...
    mon.save("now.nndebug")                                 # on demand, the same format
    nd.load_run("run.nndebug").report()                     # or: nndebug report run.nndebug

Resuming: the monitor's state goes into the checkpoint beside the model and optimizer. It
holds only strings, numbers, lists, dicts and tensors, so ``torch.load`` reads it with its
safe default (``weights_only=True``):

    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "nndebug": mon.state_dict()}, "checkpoint.pt")
    # ... the process is killed; a new one starts:
    checkpoint = torch.load("checkpoint.pt")
    model.load_state_dict(checkpoint["model"])
    opt.load_state_dict(checkpoint["optimizer"])
    mon = nd.watch(model, opt, save_to="run.nndebug")
    mon.load_state_dict(checkpoint["nndebug"])    # before the first step(): one history

After ``load_state_dict`` the step numbers continue where the saved run stopped, the rules
see the whole curve, and the findings from before the restart stay (a finding the rules no
longer produce, e.g. one a probe found once, is kept as it was).

What is kept under the budget: ``nndebug.history``. The file format: ``nndebug.runfile``.
The work happens in one sink (``LongRun``) that the monitor adds to its sinks, so its cost
is part of the monitor's measured time budget.
"""
import math
import os

from .. import runfile
from ..findings import Finding
from ..history import DEFAULT_MAX_HISTORY_MB, budget_bytes
from .sinks import Sink

DEFAULT_SAVE_EVERY_S = 60


def check_options(max_history_mb, save_to, save_every_s):
    """The history budget in bytes; a clear error for a bad option."""
    if save_to is not None and not isinstance(save_to, (str, os.PathLike)):
        raise TypeError(f"save_to must be a file path (str or os.PathLike) or None, got "
                        f"{type(save_to).__name__}")
    if isinstance(save_every_s, bool) or not isinstance(save_every_s, (int, float)) \
            or not math.isfinite(save_every_s) or save_every_s < 0:
        raise ValueError(f"save_every_s must be a number of seconds >= 0 (the least time between "
                         f"two saves while training), got {save_every_s!r}")
    return budget_bytes(max_history_mb)


class LongRun(Sink):
    """Keeps the run under its budget after every step, and saves it every ``save_every_s``
    seconds (at most) and when the monitor closes."""

    def __init__(self, monitor, save_to=None, save_every_s=DEFAULT_SAVE_EVERY_S):
        self.monitor = monitor
        self.save_to = None if save_to is None else os.fspath(save_to)
        self.save_every_s = save_every_s
        self.earlier = []            # findings from before a restart (load_state_dict)
        self.save_error = None
        self.saves = 0
        self._last_save = monitor._clock()

    def on_step(self, run, step):
        run.enforce_budget()
        if self.save_to is not None and \
                self.monitor._clock() - self._last_save >= self.save_every_s:
            self.save_now()

    def close(self, run):
        run.enforce_budget()
        if self.save_to is not None:
            self.save_now()

    def save_now(self):
        """Save to ``save_to``; a failure (disk full, folder gone) is reported, never raised."""
        self._last_save = self.monitor._clock()
        try:
            save(self.monitor, self.save_to)
            self.saves += 1
            self.save_error = None
        except OSError as error:
            self.save_error = f"{type(error).__name__}: {error}"

    def findings(self, run):
        if self.save_error is None:
            return []
        return [Finding(
            "MONITOR_ERROR", "info", "", None,
            f"nndebug could not save the run to {self.save_to} ({self.save_error}); the "
            "monitor goes on and tries again at the next save.", {"error": self.save_error},
            "Check that the folder exists and has free space, or pass another save_to.")]

    def annotate(self, run, findings):
        """The findings from before a restart join those of now, unless found again."""
        present = {f.code for f in findings}
        return list(findings) + [f for f in self.earlier if f.code not in present]


def snapshot(monitor):
    """(header, arrays) of the monitor's run now: history, findings, settings, step counter."""
    findings = monitor.findings()
    return runfile.encode(monitor.run, findings, {"step": monitor._step})


def save(monitor, path):
    """Write the monitor's run to ``path`` atomically (``nndebug.runfile``); returns the path."""
    return runfile.write(path, *snapshot(monitor))


def state_dict(monitor):
    return runfile.to_state(*snapshot(monitor))


def load_state_dict(monitor, state):
    """Continue the run saved in ``state`` (from ``mon.state_dict()``): see the module doc."""
    if monitor._step != 0:
        raise RuntimeError(f"load_state_dict(state) must be called before the first step() "
                           f"(this monitor has already seen {monitor._step} steps); call it "
                           f"right after nndebug.watch(...)")
    header, arrays = runfile.from_state(state)
    current = monitor.run
    saved, findings = runfile.decode(header, arrays, where="this monitor state",
                                     max_bytes=current.max_bytes)
    expected = [(p.name, tuple(p.shape)) for p in current.params]
    found = [(p.name, tuple(p.shape)) for p in saved.params]
    if expected != found:
        differ = next((f"{a} vs {b}" for a, b in zip(found, expected) if a != b),
                      f"{len(found)} vs {len(expected)} parameters")
        raise ValueError(f"this monitor state was saved from a model with other trainable "
                         f"parameters than this one ({differ}); load it into a monitor watching "
                         f"the same model")
    # the static facts (parameters, layers, settings, optimizer) stay this monitor's own;
    # its run object stays too (other parts of the monitor hold on to it): it takes the history
    current.adopt_history(saved)
    steps = int(header.get("monitor", {}).get("step", saved.n_steps))
    current.n_steps = monitor._step = steps
    monitor.long_run.earlier = findings
    monitor._findings_cache = None
    current.enforce_budget()
