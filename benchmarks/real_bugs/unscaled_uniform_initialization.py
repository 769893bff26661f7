"""Every weight drawn from U(-1, 1), whatever the layer's fan-in: a unit summing 64 inputs
starts with pre-activations several times larger than its inputs, and the next layer's
logits come out in the tens. The softmax saturates, the first loss is an order of magnitude
above ln(10), and Adam's small steps (1e-3 on weights of size 1) take most of the run to
undo the scale.

Reported: "Fix weight initialization" - https://github.com/tinygrad/tinygrad/pull/566
("with uniform, test accuracy is around 50% but with scaled_uniform, we have >99.8%":
tinygrad's ``Tensor.uniform`` draws from U(-1, 1); ``scaled_uniform`` divides by the square
root of the weight's size). Here the same two-layer MLP in torch, its weights set the way
the example's were. Fix: scale the draw, U(-1, 1) / sqrt(fan_in * fan_out) (tinygrad's
``scaled_uniform``), or keep torch's default initialisation.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fix weight initialization"
LINK = "https://github.com/tinygrad/tinygrad/pull/566"
EXPECTED = ("INIT_SCALE_TOO_LARGE", "SATURATED_ACTIVATIONS", "EXPLODING_GRADIENTS",
            "LOSS_EXPLOSION")
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 128, bias=False), nn.ReLU(),
                          nn.Linear(128, 10, bias=False))
    with torch.no_grad():
        for layer in (model[0], model[2]):
            layer.weight.uniform_(-1, 1)                 # BUG: tinygrad's Tensor.uniform
            if fixed:
                layer.weight.mul_(layer.weight.numel() ** -0.5)     # its scaled_uniform
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
