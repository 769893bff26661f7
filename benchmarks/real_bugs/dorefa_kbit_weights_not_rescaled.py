"""DoReFa weight quantisation at 2 bits whose quantised weights are left on the [-1, 1]
grid the quantiser works in: ``2 * round_k(tanh(w) / (2 max|tanh w|) + 1/2) - 1`` without
multiplying back by the scale ``max|tanh w|``. Every weight the layer uses is then -1, -1/3,
+1/3 or +1 whatever the float weights' size (rms 0.64, where PyTorch's default init gives
0.05-0.07 at these fan-ins): the pre-activations are ten times too large per layer, the softmax
saturates, and the network barely trains. The 1-bit path of the same quantiser keeps its
scale (``sign(w / E) * E``), so 1-bit training works and only wider settings go wrong;
nothing errors, the loss just stays high.

Reported: "Training with weight bitwidth setting." -
https://github.com/zzzxxxttt/pytorch_DoReFaNet/issues/9 (AlexNet trains with 1-bit
weights, but with 2 or 4 bits the accuracy stays at 10% and the loss near 7 whatever the
rate; the maintainer found that for bitwidth > 1 "the weight tensor is not scaled properly"
and fixed it, after which training from scratch converged). Here an MLP 64-128-128-128-10
on the digits, every one of its four layers quantising its weights to 2 bits with DoReFa's
quantiser and a straight-through round, no batch norm (which would absorb the lost
scale), SGD with momentum 0.9 at 0.05. Fix: multiply the quantised weights by
``max|tanh w|`` (detached), as the repository's fix does.

Measured (500 steps; held-out accuracy on 397 digits): seed 0, 0.083 for the bug (chance)
against 0.962 for the fixed twin; seeds shifted by 1000, 0.086 against 0.967. (With Adam
instead of SGD the bug run still learns - 0.92 against 0.96 - Adam's per-weight
normalisation absorbing most of the scale; with SGD it stalls at chance as reported.)
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._q165 import accuracy, digits_split

TITLE = "Training with weight bitwidth setting."
LINK = "https://github.com/zzzxxxttt/pytorch_DoReFaNet/issues/9"
EXPECTED = ("QUANTIZED_WEIGHTS_UNSCALED",)
STEPS = 500
BITS = 2


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        levels = 2 ** BITS - 1
        return torch.round(x * levels) / levels

    @staticmethod
    def backward(ctx, grad):
        return grad


class DoReFaLinear(nn.Linear):
    def __init__(self, inputs, outputs, fixed):
        super().__init__(inputs, outputs)
        self.fixed = fixed

    def forward(self, x):
        t = torch.tanh(self.weight)
        top = t.abs().max().detach()
        grid = 2 * RoundSTE.apply(t / (2 * top) + 0.5) - 1     # in [-1, 1]
        weight = top * grid if self.fixed else grid           # BUG: the scale dropped
        return F.linear(x, weight, self.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    model = nn.Sequential(DoReFaLinear(64, 128, fixed), nn.ReLU(),
                          DoReFaLinear(128, 128, fixed), nn.ReLU(),
                          DoReFaLinear(128, 128, fixed), nn.ReLU(),
                          DoReFaLinear(128, 10, fixed))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
