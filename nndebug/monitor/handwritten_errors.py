"""Regression errors written by hand (torch): ``((prediction - target) ** 2)[mask].mean()``,
``(prediction - target).abs().mean()``.

A torch loss call (``F.mse_loss``, ``nn.L1Loss``) is seen by the loss capture, which reads
its output and target. Many losses are written out instead, most of all masked per-token
losses of sequence models, and those showed the monitor nothing of their targets: a TTS
pitch predictor regressed on raw hertz (about 200) by ``((pitch - target) ** 2)[real]``
while its mel and duration heads starved beside it (real-bug batch 126,
``pitch_target_left_in_hertz``).

While a step is recorded, the attention capture's function mode sees every torch call
(``attention_capture.py``). This module is handed two kinds of them:

- a subtraction of two floating tensors of one shape, outside the model's forward, one
  requiring a gradient (the prediction) and the other not (the target): kept as a
  candidate for this step;
- a squaring (``** 2``, ``pow(2)``, ``square()``, ``d * d``) or an absolute value of such a
  candidate: a hand-written error. Its prediction's and target's largest magnitudes are
  reduced where the tensors live and ride along with the step's one host transfer.

Inside the model's forward the same pattern is a layer's arithmetic (an RBF layer's
``(x - centres) ** 2``, where the input is the side without a gradient), not a loss: it is
skipped. ``run.observed.handwritten_errors`` gets (step, index in the step, kind,
prediction magnitude, target magnitude), the first ``ERRORS_PER_STEP`` errors of each
recorded step, ``ROWS_KEPT`` rows at most; TARGETS_UNSCALED reads them beside the torch
loss calls.
"""
ERRORS_PER_STEP = 4      # [design] a model's losses written by hand: a TTS model's pitch,
                         # duration and mel errors are three
CANDIDATES_PER_STEP = 16  # [design] subtractions kept waiting for a square, per step
ROWS_KEPT = 256          # [design] rows kept at most: memory stays bounded on long runs


class HandwrittenErrors:
    def __init__(self, adapter, observed, inside_forward):
        """``inside_forward()``: whether the model's forward is running now."""
        self.adapter, self.observed = adapter, observed
        self.inside_forward = inside_forward
        self.candidates = []      # [(difference, prediction, target)] of this step
        self.found = []           # [(kind, prediction, target)] of this step, detached

    def arm(self):
        self.candidates, self.found = [], []

    def disarm(self):
        self.candidates = []      # ``found`` waits for the step's transfer

    def on_subtraction(self, args, result):
        """A subtraction seen by the function mode; True when it was kept."""
        if len(self.candidates) >= CANDIDATES_PER_STEP or len(args) < 2 or \
                len(self.found) >= ERRORS_PER_STEP or self.inside_forward():
            return False
        first, second = args[0], args[1]
        pair = _prediction_and_target(first, second)
        if pair is None:
            return False
        self.candidates.append((result, *pair))
        return True

    def on_error(self, kind, operand):
        """``operand`` was squared (kind "squared") or had its absolute value taken
        ("absolute"); True when it was one of this step's kept subtractions."""
        for index, (difference, prediction, target) in enumerate(self.candidates):
            if difference is operand:
                del self.candidates[index]
                if len(self.found) < ERRORS_PER_STEP:
                    self.found.append((kind, prediction.detach(), target.detach()))
                    return True
                return False
        return False

    def pack(self, packet):
        xp = self.adapter.xp
        for index, (_, prediction, target) in enumerate(self.found):
            packet.add(("handwritten_error", index, "prediction"),
                       xp.amax(xp.abs(xp.asfloat(prediction))))
            packet.add(("handwritten_error", index, "target"),
                       xp.amax(xp.abs(xp.asfloat(target))))

    def take(self, values, record):
        found, self.found = self.found, []
        rows = self.observed.handwritten_errors
        for index, (kind, _, _) in enumerate(found):
            prediction = values.get(("handwritten_error", index, "prediction"))
            target = values.get(("handwritten_error", index, "target"))
            if prediction is None or target is None or len(rows) >= ROWS_KEPT:
                continue
            rows.append((int(record.step), index, kind, float(prediction[0]),
                         float(target[0])))


def _prediction_and_target(first, second):
    """(prediction, target) when one operand is a floating tensor that requires a gradient
    and the other a floating tensor of the same shape that does not; else None."""
    import torch
    if not (isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor)):
        return None
    if not (first.is_floating_point() and second.is_floating_point()):
        return None
    if first.shape != second.shape or first.numel() < 2:
        return None
    if first.requires_grad and not second.requires_grad:
        return first, second
    if second.requires_grad and not first.requires_grad:
        return second, first
    return None
