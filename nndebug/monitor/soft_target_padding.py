"""Which class each row of a soft-target loss points at, and whether one of them looks like
padding (``run.observed.soft_target_padding``; PADDING_NOT_MASKED, ``nndebug.rules.sequence``
with ``nndebug.rules.soft_target_padding``).

Label smoothing hands a loss rows of probabilities instead of class ids: ``1 - eps`` on the
true class, the rest spread over the others, fed to ``F.kl_div`` or to ``F.cross_entropy``
with probability targets. Written by hand, it easily scores the padded positions of a
sequence batch like real ones (k-tahiro/bert-summarizer#41: the smoothing loss "simply
calculate loss with smoothing and does not consider the padding"): the model is trained to
predict padding. The row's largest entry is its class id, so the same test as for id
targets applies (``target_ids.summarize``): one id frequent and sitting in runs at the end of
the sequences while the others are not.

What is read: on the first ``CALLS_KEPT`` training calls (a graph on the input) of such a
loss whose target has the input's shape, the argmax of each target row along the class axis
(the last for a KL divergence, axis 1 for a cross-entropy), ``SAMPLE_SIZE`` ids at most,
computed where the tensors live and kept there; they reach the host when findings are asked
for. Nothing on later steps.
"""
from .target_ids import SAMPLE_SIZE, summarize

CALLS_KEPT = 4               # [design] soft-target calls read: padding shows on every batch
KL_LOSSES = {"kl_div", "KLDivLoss"}
PROBABILITY_TARGET_LOSSES = {"cross_entropy", "CrossEntropyLoss"}


class SoftTargetPadding:
    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self.enabled = adapter.framework == "torch"
        self._kept = []              # [(step, loss, reduction, output shape, ids, id grid shape)]

    def offer(self, name, output, target, reduction):
        """A loss call seen on a recorded step (its input, target and reduction)."""
        if not self.enabled or len(self._kept) >= CALLS_KEPT or \
                (name not in KL_LOSSES and name not in PROBABILITY_TARGET_LOSSES):
            return
        try:
            if not (self.adapter.is_tensor(output) and self.adapter.is_tensor(target)) or \
                    not getattr(output, "requires_grad", False) or output.ndim < 2 or \
                    tuple(target.shape) != tuple(output.shape) or \
                    not target.is_floating_point():
                return
            axis = -1 if name in KL_LOSSES else 1
            ids = target.detach().argmax(dim=axis)
            grid = tuple(ids.shape) if ids.ndim == 2 and ids.numel() <= SAMPLE_SIZE else None
            self._kept.append((self.current_step(), name, str(reduction), tuple(output.shape),
                               ids.reshape(-1)[:SAMPLE_SIZE], grid))
        except Exception as error:       # never break the user's step
            self.on_error(error)

    def read(self):
        """The kept ids to the host, summarised (before findings)."""
        rows = []
        try:
            for step, name, reduction, shape, ids, grid in self._kept:
                summary = summarize(self.adapter.to_host(ids), grid)
                if summary:
                    rows.append((step, name, reduction, list(shape), summary["target_mode"],
                                 summary["target_mode_share"], summary["target_mode_in_runs"],
                                 summary["target_others_in_runs"]))
        except Exception as error:
            self.on_error(error)
            return
        self.observed.soft_target_padding[:] = rows


def function_reduction(name, args, kwargs):
    """The ``reduction`` of an ``F.kl_div`` (position 4) or ``F.cross_entropy`` (position 6)
    call; torch's default "mean" when not given."""
    position = 4 if name in KL_LOSSES else 6
    return kwargs.get("reduction", args[position] if len(args) > position else "mean")
