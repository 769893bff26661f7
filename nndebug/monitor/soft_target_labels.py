"""How often a distillation target's top class is the batch's label
(``run.observed.soft_target_agreement``; SOFT_TARGETS_DISAGREE_WITH_LABELS,
``nndebug.rules.soft_target_labels``).

Knowledge distillation trains the student's scores with two losses on one batch: a
class-index cross-entropy against the labels and a KL divergence against a teacher's softened
distribution. A teacher trained on these labels gives its highest probability to the label
of most training rows (a weak one to more than half). When the soft targets belong to other
rows (teacher outputs stored once and read back by batch index while the loader reshuffles,
haitongli/knowledge-distillation-pytorch#17) or to no trained teacher at all (a teacher whose
checkpoint was never loaded, NVIDIA-NeMo/Megatron-Bridge#1422), their top class is the label
about as often as a guess.

What is read: on recorded steps where a KL-divergence loss (``F.kl_div`` or ``nn.KLDivLoss``)
and a class-index loss (``F.cross_entropy``/``F.nll_loss`` or their modules) are both called
on scores of one forward of the same rows (the KL's input and the cross-entropy's input lead
to one node within a few steps of the graph: ``log_softmax(s / T)`` and ``s``), the share of
rows (labelled ones: ids >= 0) whose target's largest entry is at the label, computed where
the tensors live and kept there; the first ``KEPT_FIRST`` and the last ``KEPT_LAST`` such
steps are copied to the host when findings are asked for. A mean teacher's consistency term
on other rows (unlabelled ones, another forward) is not paired.

Cost: on recorded steps with both losses, an argmax, a comparison and a mean over the batch
(no transfer); the calls reach it through the function mode and loss-module hooks that are
there already (``attention_capture.py``, ``around.py``).
"""
from collections import deque

KL_LOSSES = {"kl_div", "KLDivLoss"}
LABEL_LOSSES = {"cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss"}
KEPT_FIRST = 4               # [design] early paired steps kept (a teacher that never learned)
KEPT_LAST = 6                # [design] late paired steps kept: a mean teacher improves, so its
                             # early disagreement is no verdict; the late steps are
SHARED_SOURCE_DEPTH = 4      # [design] graph nodes walked down from each loss input to find
                             # the scores both were computed from (log_softmax, a division by
                             # T, a view: three at most in the loops seen)


class SoftTargetLabels:
    def __init__(self, adapter, observed, current_step, on_error):
        self.observed, self.current_step, self.on_error = observed, current_step, on_error
        self.enabled = adapter.framework == "torch"
        self._step, self._kl, self._labels = None, None, None
        self._first, self._last = [], deque(maxlen=KEPT_LAST)
        self.paired = False          # a step showed both losses on one forward's scores

    def offer(self, name, inputs):
        """A loss call seen on a recorded step: ``(input, target, ...)``."""
        if not self.enabled or len(inputs) < 2 or (name not in KL_LOSSES and
                                                    name not in LABEL_LOSSES):
            return
        try:
            step = self.current_step()
            if step != self._step:
                self._step, self._kl, self._labels = step, None, None
            scores, target = inputs[0], inputs[1]
            if name in KL_LOSSES and self._kl is None:
                self._kl = (scores, target)
            elif name in LABEL_LOSSES and self._labels is None and \
                    not target.is_floating_point():
                self._labels = (scores, target)
            else:
                return
            if self._kl is not None and self._labels is not None:
                self._measure(step)
        except Exception as error:           # never break the user's step
            self.enabled = False
            self.on_error(error)

    def _measure(self, step):
        (kl_input, soft), (scores, labels) = self._kl, self._labels
        self._kl = self._labels = None       # one measurement per step
        if soft.ndim != 2 or tuple(soft.shape) != tuple(kl_input.shape) or labels.ndim != 1 \
                or scores.ndim != 2 or labels.shape[0] != soft.shape[0] or \
                scores.shape[1] != soft.shape[1] or not _shared_source(kl_input, scores):
            return
        self.paired = True
        import torch
        with torch.no_grad():
            labelled = labels >= 0
            hits = (soft.detach().argmax(-1) == labels) & labelled
            row = (int(step), hits.sum(), labelled.sum(), int(soft.shape[1]))
        if len(self._first) < KEPT_FIRST:
            self._first.append(row)
        else:
            self._last.append(row)

    def read(self):
        """Copy the kept measurements to the host: (step, agreement, classes, rows)."""
        try:
            for step, hits, rows, classes in self._first + list(self._last):
                rows = int(rows)
                if rows:
                    self.observed.soft_target_agreement.append(
                        (step, float(hits) / rows, classes, rows))
        except Exception as error:
            self.on_error(error)
        self._first, self._last = [], deque(maxlen=KEPT_LAST)


def _near_nodes(tensor):
    """The graph nodes within SHARED_SOURCE_DEPTH steps below ``tensor``, parameters' leaf
    nodes left out (two forwards of one model share those, not their scores)."""
    root = getattr(tensor, "grad_fn", None)
    found, frontier = set(), [root] if root is not None else []
    for _ in range(SHARED_SOURCE_DEPTH):
        below = []
        for node in frontier:
            if getattr(node, "variable", None) is not None:
                continue                     # AccumulateGrad: a parameter, not a forward
            found.add(node)
            below += [child for child, _ in node.next_functions if child is not None]
        frontier = below
    return found


def _shared_source(kl_input, scores):
    """Whether the KL's input and the cross-entropy's scores come from one forward's scores."""
    return bool(_near_nodes(kl_input) & _near_nodes(scores))
