"""Losses that divide each element by a value with no gradient, such as the target itself
(LOSS_DIVIDED_BY_NEAR_ZERO, ``nndebug.rules.near_zero_divisors``).

A percentage error divides each row's error by its target: ``|y - p| / |y|`` (MAPE), a
relative error, a loss "normalised" by each series' level or by a per-sample scale. Such a
division weighs every row by 1 / divisor. When some divisors are zero or nearly so (a day
without sales, a road without traffic, a series that does not move), Keras-style clipping
(``clip(|y|, 1e-7)``) or an added epsilon keeps the loss finite, and those rows weigh
millions of times the rest: the optimizer spends every step on them and leaves the other
rows unfitted, while nothing turns NaN.

In torch's graph that is a quotient (``DivBackward0``) whose numerator is computed and
whose divisor is a constant tensor of many elements (a scalar divisor is a mean or a
temperature, one weight for every row). Its values are saved for the backward, and freed
by it, so they are read in two stages:

- on the first ``SCAN_STEPS`` recorded steps, the shared walk of the loss's graph
  (``graph_walks.LossGraph``, after the backward: node types only) looks for such a
  quotient; a loss without one costs nothing more;
- once one is seen, on the next ``MEASURED_STEPS`` recorded steps a torch function mode
  sees ``loss.backward()`` called (as ``policy_gradient_terms.py`` does) and, before the
  backward frees them, keeps a detached reference to each such divisor of at least
  ``MIN_ELEMENTS`` elements (no copy, no host transfer during the step).

Read when findings are asked for: each kept divisor's element count, smallest and median
magnitude. Kept as ``run.observed.near_zero_divisors``: ``[(step, elements, smallest
|divisor|, median |divisor|)]``. Cost: nothing after the measured steps; on them, a mode
on every torch call (a type check each) and one bounded walk of the loss's graph.
"""
from .function_modes import BackwardWatch   # the mode that sees loss.backward()
from .graph_walks import FirstStepsReader, nodes_under

SCAN_STEPS = 3          # [design] recorded steps whose loss graph is looked at for a quotient
MEASURED_STEPS = 3      # [design] recorded steps whose divisors are kept, once one is seen
MIN_ELEMENTS = 8        # [design] a divisor of fewer elements is a count or a few weights,
                        # not one value per row
WALK_LIMIT = 4096       # [design] loss-graph nodes walked per measured backward
QUOTIENTS = {"DivBackward0"}


def constant_divisor_quotient(node):
    """True for ``computed / constant`` (the divisor carries no gradient)."""
    if type(node).__name__ not in QUOTIENTS:
        return False
    operands = [child for child, _ in node.next_functions]
    return len(operands) == 2 and operands[0] is not None and operands[1] is None


class NearZeroDivisors(BackwardWatch):
    """The two stages of the module doc: ``in_loss`` reads the loss graph's structure and
    sets ``wanted``; the backward watch (``function_modes.BackwardWatch``) keeps the
    divisors on the next MEASURED_STEPS recorded steps."""
    steps = MEASURED_STEPS
    first_backward_only = True

    def __init__(self, adapter, observed, on_error):
        super().__init__(adapter.framework == "torch", on_error)
        self.adapter, self.observed = adapter, observed
        self.in_loss = _QuotientScan(observed, self)
        self.kept = []             # [(step, detached divisor)]

    def on_backward(self, step, loss):
        """``loss.backward()`` is about to run: keep the divisors it would free."""
        try:
            for node in nodes_under([loss.grad_fn], WALK_LIMIT):
                if constant_divisor_quotient(node):
                    divisor = node._saved_other
                    if divisor.numel() >= MIN_ELEMENTS:
                        self.kept.append((step, divisor.detach()))
        except Exception as error:      # a graph we cannot read: nothing more is kept
            self.enabled = False
            self.on_error(error)

    def read(self):
        """Each kept divisor's size, smallest and median magnitude (host copies, once, when
        findings are asked for)."""
        try:
            import numpy as np
            found = []
            for step, divisor in self.kept:
                values = np.abs(np.asarray(self.adapter.to_numpy(divisor),
                                           dtype=np.float64).ravel())
                values = values[np.isfinite(values)]
                if values.size:
                    found.append((step, int(values.size), float(values.min()),
                                  float(np.median(values))))
            if found or not self.observed.near_zero_divisors:
                self.observed.near_zero_divisors = found
        except Exception as error:
            self.on_error(error)


class _QuotientScan(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: does the loss divide by a constant tensor?"""
    steps = SCAN_STEPS

    def __init__(self, observed, owner):
        super().__init__(observed)
        self.owner = owner

    def keep(self, step, nodes):
        if any(constant_divisor_quotient(node) for node in nodes):
            self.owner.wanted = True

