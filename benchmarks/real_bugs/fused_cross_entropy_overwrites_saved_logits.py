"""A memory-saving fused cross-entropy (a custom autograd Function that computes the
gradient during the forward and stores it in the LOGITS' own buffer, so no second
vocabulary-sized tensor is allocated) placed after a layer that keeps its OUTPUT for
backward. ``exp`` computes its gradient as ``grad * exp(a)`` from the saved result - and
that saved result is the very tensor the loss has just overwritten with ``softmax - onehot``.
Backward therefore returns ``grad * grad``: every entry non-negative, the true class pushed
DOWN like the others, and scaled by ~1/batch twice. The write goes through the raw buffer
(as a Triton kernel's does), so autograd's version counter never moves and nothing raises;
the loss simply stays at log(10).

Reported: "In-place operations in triton kernel might result in incorrect gradient
calculations" - https://github.com/linkedin/Liger-Kernel/issues/272 (Liger's fused
cross-entropy stores the gradient in its input during the forward to save memory; the
maintainers' analysis: with ``a -> exp -> b -> liger_ce``, exp's backward reads the saved
``b``, which now holds the cross-entropy gradient, "Since the saved tensor is corrupted, exp
layer can't produce the correct gradients", and the same for any layer that saves its output
followed by an in-place loss; the proposed fix is to let the caller choose a separate
gradient buffer). Here the report's graph on the digits: an MLP whose class scores come out
of exp, the fused loss after it, Adam. Fix: the fused loss writes its gradient into a new
tensor and leaves the logits alone.

Measured (300 steps, batch 64, 360 held-out digits): seed 0, held-out accuracy 0.097 for the
bug against 0.903 for the fixed twin; seeds shifted by 1000, 0.097 against 0.897. (A
soft-capped head, ``cap * tanh(z / cap)``, is NOT harmed: the multiplication after tanh makes
a new tensor for the loss to overwrite, and tanh's saved output is left alone - both runs
0.875 here.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._mem158 import accuracy, digits_split

TITLE = "In-place operations in triton kernel might result in incorrect gradient calculations"
LINK = "https://github.com/linkedin/Liger-Kernel/issues/272"
EXPECTED = ("SAVED_TENSOR_OVERWRITTEN",)
STEPS = 300


class FusedCrossEntropy(torch.autograd.Function):
    """Mean cross-entropy whose gradient is computed in the forward and saved for backward."""

    @staticmethod
    def forward(ctx, logits, target, in_place):
        rows = torch.arange(len(target))
        loss = (torch.logsumexp(logits, 1) - logits[rows, target]).mean()
        grad = torch.softmax(logits, 1)
        grad[rows, target] -= 1
        grad /= len(target)
        if in_place:       # BUG: the gradient stored in the logits' buffer (no new memory)
            logits.data.copy_(grad)
            grad = logits.data
        ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx, grad_loss):
        (grad,) = ctx.saved_tensors
        return grad * grad_loss, None, None


class ExpScores(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return torch.exp(self.body(x))        # exp saves its output for backward


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = digits_split()
    model = ExpScores()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = FusedCrossEntropy.apply(model(xb), yb, not fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
