"""A hand-written RMSNorm that divides by ``torch.rsqrt(mean(x^2) + eps)``: rsqrt is already
the reciprocal, so the layer multiplies each row by its root mean square instead of dividing
by it. Its output grows as the square of its input, every pre-norm residual block feeds its
sub-layer these squared activations, and the model trains badly (the reporter's language
model diverged).

Reported: "Incorrect implementation of RMSNorm" -
https://github.com/mosaicml/llm-foundry/issues/371 ("Since `torch.rsqrt` (reciprocal sqrt)
is used instead of `torch.sqrt`, `x` should be _multiplied_ by the result instead of divided
by it ... When training a model with the current, incorrect implementation the loss
diverges. With the fix the loss appears normal."; fixed in PR #372). Here a pre-norm
residual MLP (three blocks and a final norm, as in a transformer's feed-forward stack) on the
8x8 digits, Adam. Fix: ``x * torch.rsqrt(...)``.

Measured (200 steps, 397 held-out digits): held-out accuracy 0.887 against 0.942 fixed;
seeds + 1000: 0.877 against 0.929.
"""
import torch
from torch import nn

from benchmarks.real_bugs._norms import digits, held_out_accuracy, train

TITLE = "Incorrect implementation of RMSNorm"
LINK = "https://github.com/mosaicml/llm-foundry/issues/371"
EXPECTED = ("EXPLODING_ACTIVATIONS",)
STEPS = 200
WIDTH = 64


class RMSNorm(nn.Module):
    def __init__(self, dim, fixed, eps=1e-5):
        super().__init__()
        self.fixed, self.eps = fixed, eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        if self.fixed:
            return x * scale * self.weight
        return x / scale * self.weight                  # BUG: rsqrt is already 1 / rms


class Block(nn.Module):
    def __init__(self, dim, fixed):
        super().__init__()
        self.norm = RMSNorm(dim, fixed)
        self.ffn = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ffn(self.norm(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_rows, held_out = digits()
    model = nn.Sequential(nn.Linear(64, WIDTH), *[Block(WIDTH, fixed) for _ in range(3)],
                          RMSNorm(WIDTH, fixed), nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train(model, optimizer, train_rows, steps, **watch)
    mon.test_accuracy = held_out_accuracy(model, held_out)
    return mon
