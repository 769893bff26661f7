"""A regression trained on its rounded predictions: the model's output goes through
``torch.round`` before the loss, so the prediction matches the integer targets' format.
Rounding is a step function; autograd gives it a derivative of zero everywhere, so the
loss reaches no parameter and the model never moves, while the loop runs without error
and prints a (constant) loss.

Reported: "Torch.round() gradient" - https://discuss.pytorch.org/t/torch-round-gradient/28628
(the answer: "round() is a step function so it has derivative zero almost everywhere ...
it's not useful for learning because of the zero gradient"). Here an MLP predicts the
digit's value (0-9) from its pixels, MSE against the integer label. Fix: train on the raw
output; round only when reporting a prediction.

Measured when written: the unrounded prediction's MSE ends at 27.8 (the untrained model's)
against the fixed twin's 3.2.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Torch.round() gradient"
LINK = "https://discuss.pytorch.org/t/torch-round-gradient/28628"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150


class Rounded(nn.Module):
    """The model's value prediction, rounded to the nearest integer (the bug) or not."""

    def __init__(self, rounded):
        super().__init__()
        self.net = mlp(outputs=1)
        self.rounded = rounded

    def forward(self, x):
        value = self.net(x).squeeze(1)
        return torch.round(value) if self.rounded else value


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Rounded(rounded=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train_watched(model, optimizer, nn.MSELoss(), batches(x, y.float(), steps), **watch)
    with torch.no_grad():
        mon.final_mse = float(((model.net(x).squeeze(1) - y.float()) ** 2).mean())
    return mon
