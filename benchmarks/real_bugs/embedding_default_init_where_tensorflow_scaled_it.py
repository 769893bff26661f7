"""A model reproduced from TensorFlow code keeps PyTorch's default initialisation. The paper's
TensorFlow code drew its embedding rows from a uniform range scaled to the layer (TensorFlow's
uniform_unit_scaling: sqrt(3) / sqrt(fan)), while torch.nn.Embedding draws them from N(0, 1):
summed over a bag of tokens they push the tanh layer that follows into saturation from the
first step, and the classifier flatlines far below what the TensorFlow code reaches.

Reported: "Initialization can be surprisingly important, and under-rated" -
https://github.com/pytorch/pytorch/issues/10243 (reproducing a paper, the reporter's PyTorch
model "flatlined at 50% eval accuracy" on a two-class problem with binary cross-entropy; after
days comparing with the TensorFlow code, using "their initialization formula" for the
Linear and Embedding layers gave 70%, the same as theirs). Here a bag-of-tokens binary
classifier of the digits (one token per pixel position and grey level, summed embeddings,
tanh, a linear output, BCE with logits).

Measured (300 steps, batch 64, Adam 1e-3; accuracy / BCE on all 1797 digits, 0-4 vs 5-9):
bug 79.8% / 0.504, fixed 98.2% / 0.089.

Fix: initialise the embedding as the TensorFlow code does (the report's formula, factor 1 for
word embeddings): uniform_(-r, r) with r = sqrt(3) / sqrt(vocabulary).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, binary, train_watched

TITLE = "Initialization can be surprisingly important, and under-rated"
LINK = "https://github.com/pytorch/pytorch/issues/10243"
EXPECTED = ("INIT_SCALE_TOO_LARGE", "SATURATED_ACTIVATIONS")
STEPS = 300
LEVELS, POSITIONS, WIDTH = 17, 64, 32


def tokens(x):
    """One id per (pixel position, grey level): a 64-token bag per digit."""
    return (x * 16).round().long() + LEVELS * torch.arange(POSITIONS)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    vocabulary = LEVELS * POSITIONS
    model = nn.Sequential(nn.EmbeddingBag(vocabulary, WIDTH, mode="sum"), nn.Tanh(),
                          nn.Linear(WIDTH, 1), nn.Flatten(0))
    if fixed:                                   # the TensorFlow code's scaled uniform range
        bound = math.sqrt(3) / math.sqrt(vocabulary)       # factor 1 for word embeddings
        nn.init.uniform_(model[0].weight, -bound, bound)
    # BUG (unfixed): nn.EmbeddingBag's default N(0, 1) rows, summed over 64 tokens
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.BCEWithLogitsLoss(),
                         batches(tokens(x), y, steps), **watch)
