"""The model ends in a softmax and its probabilities go into NLLLoss, which expects
log-probabilities: the loss is minus the probability of the right class, between -1 and 0,
and its gradient vanishes exactly where the model is most wrong.

Reported: "NLLLoss" -
https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9 ("the input
of nn.NLLloss() is after logsoftmax ... here only softmax is provided in model.py therefore,
the loss is always negative"). Here a small MLP on the digits ends in nn.Softmax and trains
with nn.NLLLoss. Fix: end in nn.LogSoftmax (or drop the softmax and use CrossEntropyLoss).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "NLLLoss"
LINK = "https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9"
EXPECTED = ("NLL_ON_PROBABILITIES",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    last = nn.LogSoftmax(dim=1) if fixed else nn.Softmax(dim=1)   # BUG: probabilities
    model = nn.Sequential(mlp(), last)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.NLLLoss(), batches(x, y, steps), **watch)
