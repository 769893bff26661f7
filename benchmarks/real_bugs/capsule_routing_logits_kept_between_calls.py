"""A CapsNet whose routing logits b live in the layer (a buffer, like a non-trainable
weight) and are never reset: every forward starts routing from what the last call left,
adds the batch's agreements (averaged over its images) and writes b back. The couplings
drift with every batch seen, training and held-out alike, so they no longer come from
the image routed alone: a prediction depends on the batches that came before it and on
the other images of its own batch.

Reported: "dynamic routing" - https://github.com/XifengGuo/CapsNet-Keras/issues/1 ("you
will update bias every time you send in some data, even with Variable be set as
trainable=False, and of course, the same thing goes for testing procedure"; the routing
logits also summed over the training examples). Here the batch's shared CapsNet on the
8x8 digits (``_capsnet333``: 72 primary capsules of 4 values, ten digit capsules of 8, 3
routing iterations, margin loss plus the masked reconstruction), Adam 1e-3, batches of 64,
200 steps.

Fix: b starts at zero, one set per image, on every call (Procedure 1 of the paper: a
temporary of the routing, never state).

Measured (held-out accuracy, 400 digits in batches of 100): 0.84 with the bug, 0.91 fixed;
seeds + 1000: 0.87 vs 0.93 (one digit at a time: 0.70 vs 0.91; 0.61 vs 0.93).
"""
import torch

from benchmarks.real_bugs._capsnet333 import CapsNet, digits, train

TITLE = "dynamic routing"
LINK = "https://github.com/XifengGuo/CapsNet-Keras/issues/1"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES", "BATCH_MIXING")
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits()
    model = CapsNet(kept_logits=not fixed)        # BUG: b kept in the layer, never reset
    return train(model, data, steps, **watch)
