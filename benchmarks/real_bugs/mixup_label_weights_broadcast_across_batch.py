"""Mixup with one mixing weight per image, drawn with the IMAGES' shape (B, 1, 8, 8) and
reused as is for the one-hot labels (B, 10): ``y + mix * (y[::-1] - y)`` broadcasts to
(B, 1, B, 10), every image's weight paired with every row's labels. A soft cross-entropy
written by hand (``-(targets * log_softmax(logits)).sum(-1).mean()``) broadcasts the
logits against that too and averages, so each image is trained towards labels mixed with
the BATCH's mean weight instead of its own: an image that is 95% its partner is labelled
as if it were 75%, one that is 55% its partner likewise. Shapes never clash, the loss is a
scalar, and it falls.

Reported: "fix broadcasting bug in Mixup" - https://github.com/cleverhans-lab/cleverhans/pull/700
(cleverhans' ``MixUp`` loss sampled ``mix`` with shape ``[batch] + [1] * (x.ndim - 1)`` for
the images and used the same tensor to mix the labels; the fix squeezes the image axes off
for the labels, ``mix_label = tf.squeeze(mix, dims_to_remove)`` (the reviewer suggested
``tf.reshape(mix, [-1, 1])``), and was merged). Here a small CNN on the 8x8 digits,
per-image mix ~ Beta(1, 1) folded to ``max(mix, 1 - mix)`` towards the reversed batch as in
cleverhans, the hand-written soft cross-entropy, Adam. Fix: the labels' weight reshaped to
(B, 1).

Measured (600 steps, batch 64; 500 held-out digits, eval mode): seed 0, held-out negative
log-likelihood 0.221 for the bug against 0.154 for the fixed twin (mean confidence in the
predicted class 0.83 against 0.88; accuracy 0.980 against 0.986); seeds shifted by 1000,
NLL 0.225 against 0.161 (confidence 0.83 against 0.88; accuracy 0.980 against 0.984). The
harm is to the probabilities: every image's target is pulled to the batch's mean weight.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._aug import accuracy, cnn, confidence, nll, split
from benchmarks.real_bugs._common import index_batches

TITLE = "fix broadcasting bug in Mixup"
LINK = "https://github.com/cleverhans-lab/cleverhans/pull/700"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 600


def soft_cross_entropy(logits, targets):
    return -(targets * F.log_softmax(logits, dim=-1)).sum(-1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = split()
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            xb, yb = x[index], F.one_hot(y[index], 10).float()
            mix = torch.from_numpy(rng.beta(1.0, 1.0, (len(xb), 1, 1, 1))).float()
            mix = torch.maximum(mix, 1 - mix)
            xm = xb + mix * (xb.flip(0) - xb)
            mix_label = mix.view(-1, 1) if fixed else mix   # BUG: the images' (B, 1, 1, 1)
            ym = yb + mix_label * (yb.flip(0) - yb)
            loss = soft_cross_entropy(model(xm), ym)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.held_out_nll = nll(model, x_held, y_held)
    mon.mean_confidence = confidence(model, x_held)
    return mon
