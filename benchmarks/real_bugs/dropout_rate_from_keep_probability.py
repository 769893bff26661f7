"""A TensorFlow model's dropout ported with its keep probability as the drop rate: the
original keeps 90% of the features (keep_prob=0.9), the port drops 90% of them
(Dropout(0.9)), so the classifier sees a tenth of its inputs, scaled by ten, on every
training step, and learns slowly and noisily.

Reported: "Dropout(0.9)" - https://github.com/bonlime/keras-deeplab-v3-plus/issues/4 ("I
believe it should be: Dropout(0.1) ... Orig TF repo: slim.dropout(concat_logits,
keep_prob=0.9 ...)"; the author: "You are right. Fixed it"). Here the same port in front of
the digits MLP's last layer with nn.Dropout, whose p is also the probability of dropping.
Fix: nn.Dropout(1 - keep_prob).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Dropout(0.9)"
LINK = "https://github.com/bonlime/keras-deeplab-v3-plus/issues/4"
EXPECTED = ("DROPOUT_RATE_TOO_HIGH",)
STEPS = 150
KEEP_PROB = 0.9


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    p = 1 - KEEP_PROB if fixed else KEEP_PROB        # BUG: the keep probability as p
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
