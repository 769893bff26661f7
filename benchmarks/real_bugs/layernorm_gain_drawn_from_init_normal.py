"""A BERT-style ``init_bert_weights`` applied with ``model.apply`` reaches the layer norms
too and draws their gain (gamma) and shift (beta) from N(0, 0.02) - the same initialiser as
the linear layers' weights - instead of leaving them at 1 and 0. Every layer norm then
multiplies its normalised output by ~0.02 with a random sign per feature: the signal after
each norm is 50x too small, half its features flipped, and the layers after them start with
almost nothing to read and almost no gradient.

Reported: "bug in init_bert_weights" - https://github.com/huggingface/transformers/issues/143
(the BERTLayerNorm's gamma/beta, already 1 and 0 from its constructor, are drawn again by
``module.gamma.data.normal_(mean=0.0, std=config.initializer_range)``; "if you want to get
pre-training model that is not from google model, the second init will lead to bad
convergence"; fixed by filling gamma with 1 and beta with 0 - huggingface/transformers#171).
Here: a 64-128-128-10 MLP with a LayerNorm after each hidden linear layer, on the 8x8 digits,
Adam at 1e-3, the init function applied with ``model.apply``. Measured (mean loss on the last
20 batches after 150 steps): bug 0.334, fixed 0.039.
Fix: ``nn.init.ones_(module.weight); nn.init.zeros_(module.bias)`` for LayerNorm.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "bug in init_bert_weights"
LINK = "https://github.com/huggingface/transformers/issues/143"
EXPECTED = ("NORM_GAIN_INITIALISED_NEAR_ZERO",)
STEPS = 150
INITIALIZER_RANGE = 0.02


def init_bert_weights(module, fixed):
    if isinstance(module, nn.Linear):
        module.weight.data.normal_(mean=0.0, std=INITIALIZER_RANGE)
        module.bias.data.zero_()
    elif isinstance(module, nn.LayerNorm):
        if fixed:
            module.weight.data.fill_(1.0)
            module.bias.data.zero_()
        else:
            module.weight.data.normal_(mean=0.0, std=INITIALIZER_RANGE)   # BUG: gamma ~ 0
            module.bias.data.normal_(mean=0.0, std=INITIALIZER_RANGE)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 128), nn.LayerNorm(128), nn.ReLU(),
                          nn.Linear(128, 128), nn.LayerNorm(128), nn.ReLU(),
                          nn.Linear(128, 10))
    model.apply(lambda module: init_bert_weights(module, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
