"""A SimCLR-style run draws its two views of each image from ONE augmentation call: the
random transform runs once and its output is copied into both views (in the report, the
two image keys went through the same seeded transform call, so both got the exact same
crop, dropout holes and shuffles). Every positive pair is then two identical inputs, the
contrastive task is solved by telling images apart without any invariance to the
augmentation, and the loss sinks to a fraction of the twin's while the features learn
nothing the augmentation was meant to teach.

Reported: "Augmentation fix for determinism" -
https://github.com/Project-MONAI/tutorials/pull/468 (fixes issue #467, the self-supervised
pre-training tutorial: "The same augmentation call on two images will lead to exact same
augmentation hence two calls are made to get different views"; merged). Here a digits MLP
encoder is trained with NT-Xent on two views made of random one-pixel shifts, a 20% pixel
mask and pixel noise; a nearest-centroid probe on the clean digits scores its features.
Fix: draw each view from its own call of the random augmentation.

Measured (200 steps, seed 0; the probe reads augmented held-out digits, so it asks
whether the features ignore what the augmentation varies): the bug's contrastive loss
ends at 0.90 (identical views are trivially matched) against the twin's 3.54, and the
probe scores 0.23 on the bug's features - no better than the untrained encoder's 0.23 -
against 0.56 on the twin's.

Why watch misses it: the two views are two forwards of the model in one step, and
nothing compares them; the loss falls fast, which healthy contrastive runs also do.
Naming it needs the inputs of a step's forwards compared (bit-identical first arguments,
from a model with no active dropout - SimCSE and R-Drop feed one input twice on purpose,
dropout being their augmentation; SAM forwards one batch twice for two backwards).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._ssl_digits import encoder, nt_xent, probe_accuracy, view

TITLE = "Augmentation fix for determinism"
LINK = "https://github.com/Project-MONAI/tutorials/pull/468"
EXPECTED = ("CONTRASTIVE_VIEWS_IDENTICAL",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    before = probe_accuracy(model, x, y)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            first = view(xb)
            if fixed:
                second = view(xb)
            else:       # BUG: one augmentation call copied into both views
                second = first.clone()
            loss = nt_xent(model(first), model(second))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.extra = {"probe_accuracy": probe_accuracy(model, x, y),
                 "probe_accuracy_untrained": before,
                 "final_loss": round(float(loss), 3)}
    return mon
