"""What the first CTC loss calls asked for (CTC_LABEL_BEYOND_CLASSES and
CTC_ALIGNMENTS_IMPOSSIBLE, ``nndebug.rules.ctc_alignments``; real-bug batch 89).

Two mistakes torch's CTC (``nn.CTCLoss`` / ``F.ctc_loss``) lets through on the CPU:

* a label id at or beyond the number of classes of the scores (a head sized from the
  largest label, forgetting the blank): nothing checks it, each such label reads a
  log-probability past its row (the next row's memory), and the loss goes wrong or NaN;
* a line with fewer frames (``input_lengths``) than its alignment needs (one frame per
  label, and a blank between two equal labels in a row): no path spells it, its loss is
  infinite - and with ``zero_infinity=True`` it silently becomes 0, with no gradient. A
  front end that strides too far makes most lines so, and the average over the batch falls
  towards 0 while the model learns nothing for them.

What it keeps (torch, training calls of ``nn.CTCLoss`` outside the model or of
``F.ctc_loss``, the first ``KEPT_CALLS``): detached references to the targets, the input
and target lengths, the scores' shape (time, batch, classes), the blank and
``zero_infinity``. No copy, no host transfer during the step. Read when findings are asked
for: ``run.observed.ctc_alignments``: ``[(step, classes, zero_infinity, lines, lines with
too few frames, labels, labels >= classes or < 0)]``. Cost: on those calls a few
references kept; at findings, the kept targets and lengths copied to the host (a few
hundred integers here).
"""
import numpy as np

KEPT_CALLS = 3             # [design] training calls read: a few batches show the lengths
CTC_MODULES = {"CTCLoss"}
CTC_FUNCTIONS = {"ctc_loss"}


class CtcAlignments:
    """Keeps the first CTC loss calls' targets and lengths (see the module doc)."""

    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self.kept = []   # [(step, shape, zero_infinity, targets, input_lengths, target_lengths)]

    def offer_module(self, module, inputs, output):
        """A loss module outside the model ran: (log_probs, targets, input_lengths,
        target_lengths)."""
        if type(module).__name__ in CTC_MODULES and len(inputs) >= 4:
            self._keep(inputs[0], output, bool(getattr(module, "zero_infinity", False)),
                       *inputs[1:4])

    def offer_function(self, name, args, kwargs):
        """``F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
        reduction='mean', zero_infinity=False)``."""
        if name not in CTC_FUNCTIONS:
            return
        names = ("log_probs", "targets", "input_lengths", "target_lengths", "blank",
                 "reduction", "zero_infinity")
        given = {**dict(zip(names, args)), **kwargs}
        if all(k in given for k in names[:4]):
            self._keep(given["log_probs"], given["log_probs"],
                       bool(given.get("zero_infinity", False)), given["targets"],
                       given["input_lengths"], given["target_lengths"])

    def _keep(self, scores, graph_tensor, zero_infinity, targets, input_lengths,
              target_lengths):
        try:
            if len(self.kept) >= KEPT_CALLS or not getattr(graph_tensor, "requires_grad", False):
                return             # enough kept, or an evaluation call (no graph)
            if not (self.adapter.is_tensor(scores) and self.adapter.is_tensor(targets)):
                return
            shape = tuple(int(n) for n in scores.shape)
            if len(shape) not in (2, 3):
                return
            if len(shape) == 2:    # an unbatched (T, C) call
                shape = (shape[0], 1, shape[1])
            kept = [self.adapter.detach(v) if self.adapter.is_tensor(v) else v
                    for v in (targets, input_lengths, target_lengths)]
            self.kept.append((self.current_step(), shape, zero_infinity, *kept))
        except Exception as error:  # never break the user's step
            self.on_error(error)

    def read(self):
        """Count the lines with too few frames and the labels beyond the classes (host
        copies, once, when findings are asked for)."""
        try:
            found = []
            for step, shape, zero_infinity, targets, inputs, lengths in self.kept:
                row = alignment_counts(self._array(targets), self._array(inputs),
                                       self._array(lengths), shape)
                if row is not None:
                    found.append((-1 if step is None else int(step), shape[2],
                                  bool(zero_infinity), *row))
            if found or not self.observed.ctc_alignments:
                self.observed.ctc_alignments = found
        except Exception as error:
            self.on_error(error)

    def _array(self, value):
        value = self.adapter.to_numpy(value) if self.adapter.is_tensor(value) else value
        return np.asarray(value, dtype=np.int64)


def alignment_counts(targets, input_lengths, target_lengths, shape):
    """(lines, lines whose input length is under the frames their target needs, labels,
    labels outside 0..classes-1) of one CTC call, or None when the arguments do not fit
    together (torch would have refused them)."""
    frames, batch, classes = shape
    input_lengths = np.broadcast_to(np.asarray(input_lengths).ravel(), (batch,))
    target_lengths = np.broadcast_to(np.asarray(target_lengths).ravel(), (batch,))
    if targets.ndim == 2:
        rows = [targets[i, :int(n)] for i, n in enumerate(target_lengths)]
    else:
        ends = np.cumsum(target_lengths)
        if ends.size and ends[-1] > targets.size:
            return None
        rows = np.split(targets.ravel()[:int(ends[-1]) if ends.size else 0], ends[:-1])
    short = 0
    labels = beyond = 0
    for row, length in zip(rows, input_lengths):
        row = np.asarray(row).ravel()
        needed = row.size + int(np.count_nonzero(row[1:] == row[:-1]))
        short += int(min(int(length), frames) < needed)
        labels += row.size
        beyond += int(np.count_nonzero((row < 0) | (row >= classes)))
    return batch, short, labels, beyond
