"""How many CTC target labels are the blank itself (CTC_TARGET_IS_BLANK,
``nndebug.rules.ctc_targets``).

CTC sums over every alignment of a target sequence to the frames, using one reserved
output, the blank, for "no label at this frame". torch's ``nn.CTCLoss`` / ``F.ctc_loss``
keep ``blank=0`` unless told otherwise, so label ids that start at 0 (the first
character, the digit 0) make that label and the blank the same output. torch does not
check: a target 0 asks the model for the very symbol the loss drops between labels, the
sequences holding it cannot be spelt, and what is learned for them pulls the blank around.
Targets must be 1..C-1 (shift the ids by one), or ``blank`` set to an id no label uses.

What it keeps (torch, training calls of ``nn.CTCLoss`` outside the model or of
``F.ctc_loss``): a detached reference to the targets and target lengths of the first
``KEPT_CALLS`` calls, and the blank (no copy, no host transfer during the step). Read when
findings are asked for: the labels counted (in the padded (N, S) form only the first
``target_lengths[i]`` of row i: padding after them may be anything, 0 included) and how
many equal the blank. Kept as ``run.observed.ctc_blank_targets``: ``[(step, blank, labels,
labels equal to the blank)]``. Cost: nothing on steps after the first KEPT_CALLS calls;
on those, a reference kept.
"""
import numpy as np

KEPT_CALLS = 3             # [design] training calls read: a few batches show the label ids
CTC_MODULES = {"CTCLoss"}
CTC_FUNCTIONS = {"ctc_loss"}
DEFAULT_BLANK = 0          # [convention] torch's CTCLoss / ctc_loss default blank


class CtcBlankTargets:
    """Keeps the targets of the first CTC loss calls (see the module doc)."""

    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self.kept = []             # [(step, blank, detached targets, target lengths)]

    def offer_module(self, module, inputs, output):
        """A loss module outside the model ran: (log_probs, targets, input_lengths,
        target_lengths)."""
        if type(module).__name__ in CTC_MODULES and len(inputs) >= 4:
            self._keep(output, getattr(module, "blank", DEFAULT_BLANK), inputs[1], inputs[3])

    def offer_function(self, name, args, kwargs):
        """``F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, ...)``."""
        if name not in CTC_FUNCTIONS:
            return
        names = ("log_probs", "targets", "input_lengths", "target_lengths", "blank")
        given = {**dict(zip(names, args)), **kwargs}
        if "targets" in given and "target_lengths" in given:
            self._keep(given.get("log_probs"), given.get("blank", DEFAULT_BLANK),
                       given["targets"], given["target_lengths"])

    def _keep(self, graph_tensor, blank, targets, lengths):
        try:
            if len(self.kept) >= KEPT_CALLS or not getattr(graph_tensor, "requires_grad", False):
                return             # enough kept, or an evaluation call (no graph)
            if self.adapter.is_tensor(targets):
                if self.adapter.is_tensor(lengths):
                    lengths = self.adapter.detach(lengths)
                self.kept.append((self.current_step(), int(blank),
                                  self.adapter.detach(targets), lengths))
        except Exception as error:  # never break the user's step
            self.on_error(error)

    def read(self):
        """Count the kept labels equal to the blank (host copies, once, when findings are
        asked for)."""
        try:
            found = [(-1 if step is None else int(step), blank, *blank_labels(
                         np.asarray(self.adapter.to_numpy(targets)),
                         np.asarray(self.adapter.to_numpy(lengths)
                                    if self.adapter.is_tensor(lengths) else lengths),
                         blank))
                     for step, blank, targets, lengths in self.kept]
            if found or not self.observed.ctc_blank_targets:
                self.observed.ctc_blank_targets = found
        except Exception as error:
            self.on_error(error)


def blank_labels(targets, lengths, blank):
    """(labels counted, labels equal to ``blank``) of CTC targets: the padded (N, S) form
    counts the first lengths[i] of row i, the concatenated 1-D form every label."""
    lengths = np.asarray(lengths, dtype=np.int64).ravel()
    if targets.ndim == 2:
        columns = np.arange(targets.shape[1])[None, :]
        labels = targets[columns < lengths[:, None]]
    else:
        labels = targets.ravel()[:int(lengths.sum())]
    return int(labels.size), int(np.count_nonzero(labels == blank))
