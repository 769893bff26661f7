"""What the two framework callbacks share: the micro-batch loss buffer and the closing words."""

class LossBuffer:
    """The losses of the micro-batches since the last optimizer step, kept detached.

    With gradient accumulation, one optimizer step sees several forward passes; the step's
    loss is their mean (what a hand-written accumulation loop would report). Values stay
    tensors until the monitor copies them to the host, so no extra device sync happens here.
    """

    def __init__(self):
        self.values = []

    def add(self, loss):
        if loss is None:
            return
        detach = getattr(loss, "detach", None)
        self.values.append(detach() if detach is not None else float(loss))

    def take_mean(self):
        """The mean of the buffered losses (None when empty), and an empty buffer."""
        values, self.values = self.values, []
        if not values:
            return None
        if len(values) == 1:
            return values[0]
        total = values[0]
        for value in values[1:]:
            total = total + value
        return total / len(values)


def with_graph(graph_loss, step_loss):
    """The loss backward got, its graph attached, when it can stand for the step's loss (a
    scalar tensor: the very loss the step computed, one micro-batch, no accumulation; the
    values are not compared, which would cost a device sync), else ``step_loss``. The rules
    that read the loss's graph see what it was computed from."""
    return graph_loss if getattr(graph_loss, "ndim", None) == 0 else step_loss


def weights_validated(monitor, val_loss):
    """A validation loss was just measured and reaches the monitor with the next step: the
    weights it measured are fingerprinted now (``Monitor.weights_validated``), not one
    update later."""
    if val_loss is not None and monitor is not None:
        monitor.weights_validated()


def closing_summary(monitor, framework):
    """Print the findings: the full report when there is a problem, one line otherwise."""
    findings = monitor.findings()
    problems = [f for f in findings if f.severity in ("warning", "error")]
    if problems:
        print(monitor.report())
    else:
        print(f"nndebug ({framework}): no problems found in {monitor.run.n_steps} optimizer steps.")
    return findings


def findings_as_metrics(findings):
    """Counts by severity, the numbers a metrics logger can take (it logs numbers only)."""
    counts = {"nndebug/errors": 0, "nndebug/warnings": 0, "nndebug/infos": 0}
    for finding in findings:
        key = {"error": "nndebug/errors", "warning": "nndebug/warnings"}.get(
            finding.severity, "nndebug/infos")
        counts[key] += 1
    return counts


def findings_as_text(findings):
    """One line per finding, for loggers that take text (TensorBoard's add_text, W&B)."""
    return "\n".join(str(f) for f in findings) or "no findings"


def as_float(value):
    """A metric the framework holds (tensor or number) as a float, or None."""
    if value is None:
        return None
    try:
        return float(value.item() if hasattr(value, "item") else value)
    except (TypeError, ValueError):
        return None
