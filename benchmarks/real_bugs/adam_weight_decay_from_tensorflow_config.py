"""A weight decay of 0.05 carried over from a TensorFlow config into torch.optim.Adam: Adam
adds weight_decay x w to the gradient before its normalisation, so wherever the decay term
outweighs the loss's gradient the step becomes lr x sign(w), a fixed pull towards zero; the
weights shrink to a small equilibrium and the networks "just go to zero".

Reported: "networks weight decay" - https://github.com/tinghuiz/SfMLearner/issues/34 ("the
weight decay you use seems very large to me ... here it is 0.05! When using it, my two
networks just go to zero very quickly", the PyTorch port trained with Adam). Here the digits
MLP with Adam at lr=1e-3 and weight_decay=0.05. Fix: a weight decay of about 1e-4 with Adam
(or a decoupled one, AdamW).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "networks weight decay"
LINK = "https://github.com/tinghuiz/SfMLearner/issues/34"
EXPECTED = ("COUPLED_WEIGHT_DECAY_TOO_LARGE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    decay = 1e-4 if fixed else 0.05                 # BUG: a TensorFlow-sized decay in Adam
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=decay)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
