"""Per-sample losses ranked to choose the rows a loss trains on (torch): co-teaching's
small-loss trick (each network trains on the samples its peer finds easiest), online hard
example mining (the largest losses), self-paced curricula.

``F.cross_entropy(logits, y, reduction="none").argsort()[:keep]``: the step's loss is then
a mean over rows chosen by their own losses, and its level jumps with what the choice lets
in - a healthy co-teaching pair on 40%-noisy digits has a median step loss of 0.12 and
spikes to 1-2 on 6.6% of its steps (real-bug batch 135,
``coteaching_gate_multiplies_batch_mean_loss``'s fixed twin). Such spikes say nothing of
the learning rate (LOSS_OSCILLATING: ``curve.rows_chosen_by_loss``).

While a step is recorded, the attention capture's function mode hands over each call of a
loss function with ``reduction="none"`` (its per-sample result is kept for the step) and
each ``argsort``, ``sort`` or ``topk``; one of a kept result notes the step in
``run.observed.ranked_losses`` (the first ``ROWS_KEPT`` such steps).
"""
PER_STEP = 8          # [design] per-sample loss results kept per step
ROWS_KEPT = 16        # [design] steps noted at most: the rule asks whether it happens


class RankedLosses:
    def __init__(self, observed, current_step):
        self.observed, self.current_step = observed, current_step
        self.per_sample = []

    def arm(self):
        self.per_sample = []

    def disarm(self):
        self.per_sample = []

    def on_loss(self, kwargs, result):
        if kwargs.get("reduction") == "none" and getattr(result, "ndim", 0) >= 1 and \
                len(self.per_sample) < PER_STEP:
            self.per_sample.append(result)

    def on_ranking(self, args):
        rows = self.observed.ranked_losses
        if not args or len(rows) >= ROWS_KEPT or not any(args[0] is kept
                                                         for kept in self.per_sample):
            return False
        step = self.current_step()
        if not rows or rows[-1][0] != step:
            rows.append((int(step),))
        return True
