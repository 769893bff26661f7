"""Sinks: where a watched run goes while it trains (TensorBoard, and what others add).

A sink receives the run as it is measured; it never changes what is measured or judged.

    class PrintRecords(Sink):
        def on_record(self, run, record, histograms):
            print(record.step, record.grad_norm)

    nd.watch(model, opt, sinks=[PrintRecords()])

Every method has a do-nothing default, so a sink writes only the ones it needs:

- ``on_step(run, step)``: after every optimizer step (keep it cheap: no host copies);
- ``on_losses(run, steps, values, curve)``: losses reached the host (``curve`` is
  "train" or "val"); they arrive in batches, not one per step;
- ``on_record(run, record, histograms)``: a recorded step (``record.judged``: whether
  the rules read it; extra records come from the time budget, see ``schedule.py``);
- ``findings(run)``: extra findings this sink has to add (e.g. from other processes);
  they join ``Monitor.findings()``; asked before the rules run, so a sink may also bring
  the run up to date here (copy what it kept on the device);
- ``annotate(run, findings)``: the complete list, returned (possibly with more evidence);
- ``close(run)``: the monitor closes (flush files here).

A sink that raises is dropped with a MONITOR_ERROR note: it never breaks training.
"""


class Sink:
    """Base class of the monitor's sinks; override what you need."""

    # methods a sink overrides but does not need in this run: the monitor does not call
    # them. ``on_step`` runs at every training step; a sink done with it may add it here
    # later (the monitor looks again at its next full step).
    unneeded = ()

    def on_step(self, run, step):
        pass

    def on_losses(self, run, steps, values, curve):
        pass

    def on_record(self, run, record, histograms):
        pass

    def findings(self, run):
        return []

    def annotate(self, run, findings):
        return findings

    def close(self, run):
        pass


class TensorBoardSink(Sink):
    """Scalars and histograms for TensorBoard: ``watch(model, opt, tensorboard="runs/x")``."""

    def __init__(self, logdir):
        import os
        from ..report.tensorboard import TensorBoardWriter
        if not isinstance(logdir, (str, os.PathLike)):
            raise TypeError(f"tensorboard= expects a folder path for the event files, got "
                            f"{type(logdir).__name__}")
        if os.path.exists(logdir) and not os.path.isdir(logdir):
            raise ValueError(f"tensorboard={os.fspath(logdir)!r} is a file; TensorBoard writes "
                             "a folder of event files: pass a folder path (it is created)")
        self.writer = TensorBoardWriter(logdir)

    def on_losses(self, run, steps, values, curve):
        self.writer.losses(steps, values, f"loss/{curve}")

    def on_record(self, run, record, histograms):
        self.writer.record(run, record, histograms)

    def close(self, run):
        self.writer.close()
