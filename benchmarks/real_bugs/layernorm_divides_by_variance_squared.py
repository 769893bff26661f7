"""A hand-written layer normalisation whose "standard deviation" is written
``(variance + eps) ** 2`` instead of ``** 0.5``: each row is divided by its variance squared,
so rows of small spread are blown up and rows of large spread shrunk towards zero (the
output's scale goes as 1 / sigma^3 instead of 1). The layer stops normalising, the network
behind it sees activations whose size depends on the input's spread, and it learns worse.

Reported: "Question about layernorm?" -
https://github.com/131250208/TPlinker-joint-extraction/issues/37 ("line 86 in
components.py: `std = (variance + self.epsilon) **2` Is this a bug? I think it should be
`(variance + self.epsilon) ** 0.5`"; the author: "Yes, you are right. But it might not
influence too much. You can fix it by yourself."). Here an MLP on the 8x8 digits with that
layer norm after each of its two hidden layers, Adam as in TPLinker. Fix: ``** 0.5``.

Measured (200 steps, 397 held-out digits): held-out accuracy 0.887 against 0.912 fixed;
seeds + 1000: 0.869 against 0.899.
"""
import torch
from torch import nn

from benchmarks.real_bugs._norms import digits, held_out_accuracy, train

TITLE = "Question about layernorm?"
LINK = "https://github.com/131250208/TPlinker-joint-extraction/issues/37"
EXPECTED = ("EXPLODING_ACTIVATIONS",)
STEPS = 200


class LayerNorm(nn.Module):
    def __init__(self, hidden, power, epsilon=1e-5):
        super().__init__()
        self.power, self.epsilon = power, epsilon
        self.gamma = nn.Parameter(torch.ones(hidden))
        self.beta = nn.Parameter(torch.zeros(hidden))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        variance = ((x - mean) ** 2).mean(-1, keepdim=True)
        std = (variance + self.epsilon) ** self.power   # BUG when power == 2: not ** 0.5
        return (x - mean) / std * self.gamma + self.beta


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_rows, held_out = digits()
    power = 0.5 if fixed else 2
    model = nn.Sequential(nn.Linear(64, 64), LayerNorm(64, power), nn.ReLU(),
                          nn.Linear(64, 64), LayerNorm(64, power), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train(model, optimizer, train_rows, steps, **watch)
    mon.test_accuracy = held_out_accuracy(model, held_out)
    return mon
