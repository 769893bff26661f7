"""A loss whose gradient is written by hand (a custom ``autograd.Function`` that returns a
fixed gradient from ``backward``, the score-distillation pattern) trained under fp16
autocast with a ``GradScaler``: ``scaler.scale(loss).backward()`` multiplies the incoming
gradient by the scale (65536 at the start), but the hand-written ``backward`` returns its
gradient without multiplying by ``grad_output``, so that gradient arrives unscaled. The
scaler then divides every gradient by the scale before the step: the losses autograd
differentiates come out right, and the hand-written one comes out 65536 times too small.
Nothing is NaN or inf, no step is skipped, and the loss printed is the ordinary one: the
model trains on the auxiliary term alone and the main signal is silently lost.

Reported: "custom backward does not account for gradient scaling" -
https://github.com/ashawkey/stable-dreamfusion/issues/158 (stable-dreamfusion's
``SpecifyGradient`` returns the score-distillation gradient from ``backward`` as it is;
the reporter saw the other losses scaled by the grad scaler and the SDS gradient not, so
under AMP the SDS term is divided by the scale relative to the rest; the fix is to
multiply the returned gradient by the incoming ``grad_output`` (which carries the scale)).

Here an MLP on the 8x8 digits (1400 rows to train, 397 held out) whose main term is a
hand-written cross-entropy gradient (softmax minus one-hot, divided by the batch) injected
through such a Function, plus a small autograd-differentiated auxiliary term (0.01 times
the mean squared logit, a logit penalty), SGD with momentum 0.9 at rate 0.05, batches of
64, forward under ``torch.autocast("cpu", dtype=torch.float16)``, ``GradScaler("cpu")``.
Fix: ``backward`` returns ``grad_output * gradient``.

Measured (held-out accuracy): seed 0: 0.05 with the bug against 0.97 for the fixed twin;
seeds shifted by 1000: 0.08 against 0.97. The bug run's shown cross-entropy stays near
chance (2.3) while the logit penalty it does follow shrinks the logits.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._amp151 import accuracy, digits_split
from benchmarks.real_bugs._common import batches, mlp

TITLE = "custom backward does not account for gradient scaling"
LINK = "https://github.com/ashawkey/stable-dreamfusion/issues/158"
EXPECTED = ("CUSTOM_GRADIENT_NOT_SCALED",)
STEPS = 300
AUX_WEIGHT = 0.01


class SpecifiedGradient(torch.autograd.Function):
    """Forward: a zero-valued stand-in loss for ``logits``; backward: ``gradient``."""

    @staticmethod
    def forward(ctx, logits, gradient, scaled):
        ctx.save_for_backward(gradient)
        ctx.scaled = scaled
        return logits.new_zeros(())

    @staticmethod
    def backward(ctx, grad_output):
        (gradient,) = ctx.saved_tensors
        if ctx.scaled:
            return grad_output * gradient, None, None
        return gradient, None, None      # BUG: the scale in grad_output is dropped


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                logits = model(xb)
            logits = logits.float()
            with torch.no_grad():         # the hand-written gradient of the cross-entropy
                target = torch.nn.functional.one_hot(yb, 10).float()
                gradient = (logits.softmax(-1) - target) / len(yb)
                shown = torch.nn.functional.cross_entropy(logits, yb)
            aux = AUX_WEIGHT * logits.pow(2).mean()
            loss = SpecifiedGradient.apply(logits, gradient, fixed) + aux
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            mon.step(shown + aux.detach())
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
