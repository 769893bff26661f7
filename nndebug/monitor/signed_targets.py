"""The values of the +1/-1 targets given to pair and margin losses (SIGNED_TARGETS_AS_ZERO_ONE,
``nndebug.rules.signed_targets``).

``CosineEmbeddingLoss``, ``HingeEmbeddingLoss``, ``MarginRankingLoss`` and
``SoftMarginLoss`` take a target that must be +1 or -1: +1 "similar / first ranks higher /
positive", -1 the opposite. torch does not check the values. A target written as 0/1 - the
usual way to write "same or not" - leaves every 0 in no branch of the first two (the pair
adds zero loss and zero gradient), a constant ``margin`` in the ranking loss (no gradient
either), and a loss with no effect in the soft margin one: the "different" half of the
data silently stops teaching.

What it keeps (torch, loss modules called outside the model): a detached reference to the
target of the first ``KEPT_CALLS`` training calls of these losses (no copy, no host
transfer during the step). Read when findings are asked for: how many target values are
+1, -1, 0, and anything else. Kept as ``run.observed.signed_targets``: ``[(step, loss name,
values, +1s, -1s, 0s)]`` (a declared field of ``nndebug.observed.Observed``: saved and
loaded with the run).
"""
import numpy as np

# the losses whose target must be +1 or -1, and where the target sits among the inputs
SIGNED_TARGET_LOSSES = {"CosineEmbeddingLoss": 2, "MarginRankingLoss": 2,
                        "HingeEmbeddingLoss": 1, "SoftMarginLoss": 1}
KEPT_CALLS = 4             # [design] training calls whose targets are read: a few batches


class SignedTargets:
    """Keeps the targets of the first signed-target loss calls (see the module doc)."""

    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self.kept = []             # [(step, loss name, detached target)]

    def offer(self, name, inputs, output):
        """A loss module outside the model ran; keep its target if it takes a signed one."""
        try:
            where = SIGNED_TARGET_LOSSES.get(name)
            if where is None or len(self.kept) >= KEPT_CALLS or len(inputs) <= where:
                return
            if not getattr(output, "requires_grad", False):
                return             # an evaluation call: not what is trained
            target = inputs[where]
            if self.adapter.is_tensor(target):
                self.kept.append((self.current_step(), name, self.adapter.detach(target)))
        except Exception as error:  # never break the user's step
            self.on_error(error)

    def read(self):
        """Count the kept targets' values (host copies, once, when findings are asked)."""
        try:
            found = []
            for step, name, target in self.kept:
                values = np.asarray(self.adapter.to_numpy(target), dtype=np.float64).ravel()
                found.append((-1 if step is None else int(step), name, int(values.size),
                              int(np.count_nonzero(values == 1)),
                              int(np.count_nonzero(values == -1)),
                              int(np.count_nonzero(values == 0))))
            if found or not self.observed.signed_targets:
                self.observed.signed_targets = found
        except Exception as error:
            self.on_error(error)
