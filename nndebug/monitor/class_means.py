"""A loss that averages a (batch, classes) table of per-class terms in which a one-hot mask
left one term per row (real-bug batch 75: losses written by hand; LOSS_MEAN_OVER_CLASSES,
``rules/class_means.py``).

``(-one_hot * (1 - p) ** gamma * log_p).mean()`` - a focal loss, a cross-entropy, a
distillation term written by hand over a (batch, classes) tensor - divides by batch x
classes where the per-sample loss (a sum over the classes) averaged over the batch was
meant: every gradient is 1 / classes of the intended one (itakurah/focal-loss-pytorch#6;
GMvandeVen/continual-learning#5; jax-ml/jax#1023). Under SGD that is a learning rate
``classes`` times smaller than the one chosen.

Read before the backward of the origin watch's steps (``nonfinite_origins.py``: the first
three recorded ones), when the graph still holds what it saved: the loss's root is a whole
mean over a 2-D (rows, classes) input, and below it (at most ``CLASS_MEAN_LOOK_DOWN``
nodes, breadth first, through signs, powers and products only) a product takes a constant
operand (no gradient) of that same shape. A reference to that constant is kept; at
``findings()`` (``read``) it is looked at once: a one-hot mask has exactly one non-zero per
row, all of one magnitude. Kept in ``observed.class_mean_losses``: ``[(step, rows,
classes)]``.

Cost: a few attribute reads per step on three steps; one (rows, classes) tensor kept alive
until ``findings()`` and read then (one host transfer of a few KB); nothing else.
"""
from .graph_walks import constant_operand

CLASS_MEAN_LOOK_DOWN = 8     # [design] nodes looked at below the mean (signs, powers, products:
                             # a focal term's mask sits two products down)
CLASS_MEAN_CHAIN = {"NegBackward0", "MulBackward0", "MulBackward1", "PowBackward0",
                    "PowBackward1", "DivBackward0", "DivBackward1"}


class ClassMeans:
    def __init__(self, observed):
        self.observed = observed
        self.kept = None           # (step, the constant operand), the first found

    def before_backward(self, step, loss):
        """The origin watch's loss, before its backward: keep the mask operand if the loss is
        a whole mean over (rows, classes) masked by a constant of that shape."""
        if self.kept is not None or step is None:
            return
        root = getattr(loss, "grad_fn", None)
        if type(root).__name__ != "MeanBackward0":
            return
        try:
            shape = tuple(int(s) for s in root._saved_self_sym_sizes)
        except (AttributeError, RuntimeError, TypeError):
            return
        if len(shape) != 2 or min(shape) < 2:
            return
        pending = [parent for parent, _ in root.next_functions if parent is not None]
        for _ in range(CLASS_MEAN_LOOK_DOWN):
            if not pending:
                return
            node = pending.pop(0)
            if type(node).__name__ not in CLASS_MEAN_CHAIN:
                continue           # a sum of terms, a softmax, a log: not followed
            constant = constant_operand(node)
            if constant is not None and tuple(constant.shape) != shape:
                constant = None
            if constant is not None:
                self.kept = (int(step), constant.detach())
                return
            pending += [parent for parent, _ in node.next_functions if parent is not None]

    def read(self):
        """At ``findings()``: is the kept operand a one-hot mask (one non-zero per row, all of
        one magnitude)?"""
        if self.kept is None:
            return
        step, mask = self.kept
        self.kept = None
        import torch
        with torch.no_grad():
            nonzero = mask != 0
            per_row = nonzero.sum(dim=1)
            magnitudes = mask.abs()[nonzero]
            one_hot = bool((per_row == 1).all()) and magnitudes.numel() > 0 and \
                bool((magnitudes == magnitudes[0]).all())
        if one_hot:
            self.observed.class_mean_losses.append((step, int(mask.shape[0]),
                                                    int(mask.shape[1])))
