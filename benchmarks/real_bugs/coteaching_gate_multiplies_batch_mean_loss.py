"""Co-teaching whose small-loss selection multiplies a loss that was already averaged over
the batch. Each of the two networks should be updated only on the samples its peer finds
easiest (the ones most likely to carry a clean label); here the 0/1 selection mask is
multiplied into ``F.cross_entropy(logits, labels)`` with the default mean reduction, a
scalar, so ``(mask * mean_loss).sum() / batch`` is just ``(kept / batch) * mean_loss``: the
mask only rescales the loss, and every sample, the corrupted ones included, drives both
networks. The run trains, the loss falls, nothing errors: the two networks simply
memorise the noisy labels as plain cross-entropy would, and the robustness co-teaching is
there for is gone.

Reported: "Question about loss functions" -
https://github.com/xingruiyu/coteaching_plus/issues/1 (the reporter found that in
Co-teaching+'s ``loss.py`` the per-sample gate ``update_step`` multiplies
``cross_entropy_1``, a scalar from the mean-reduced ``F.cross_entropy``, so it "does not
work as gates" - the product equals ``update_step.sum() * cross_entropy_1``; others
confirmed it. The fix is a per-sample loss, ``reduction='none'``, gated and then summed).
Here: two MLPs co-taught on the 8x8 digits (1,300 training images, 40% symmetric label
noise, 497 clean held-out images), Adam, the forget rate ramped to the noise rate over the
first ten epochs, each network updated on its peer's small-loss half of the batch. Fix:
per-sample cross-entropy (``reduction='none'``) gated by the selection, averaged over the
kept samples.

Measured (3,000 steps, batch 64): held-out accuracy of the first network at seed 0, 0.82
for the bug against 0.905 for the fixed twin; seeds shifted by 1000, 0.78 against 0.93 (at
50% noise the fixed twin itself memorised by 2,500 steps at shift 1000, 0.80; so 40%).
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import accuracy, digits_split, symmetric_noise

TITLE = "Question about loss functions"
LINK = "https://github.com/xingruiyu/coteaching_plus/issues/1"
EXPECTED = ("SAMPLE_GATE_ON_REDUCED_LOSS",)
STEPS = 3000
NOISE = 0.4
BATCH = 64
RAMP_EPOCHS = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    noisy, _ = symmetric_noise(y, NOISE)
    pair = torch.nn.ModuleList([mlp(hidden=256), mlp(hidden=256)])
    optimizer = torch.optim.Adam(pair.parameters(), lr=1e-3)
    per_epoch = len(x) // BATCH
    with nd.watch(pair, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(x), steps, BATCH)):
            xb, yb = x[index], noisy[index]
            forget = NOISE * min(1.0, step / (RAMP_EPOCHS * per_epoch))
            keep = max(1, math.ceil((1 - forget) * len(xb)))
            logits = [net(xb) for net in pair]
            with torch.no_grad():
                small = [F.cross_entropy(z, yb, reduction="none").argsort()[:keep]
                         for z in logits]
            losses = []
            for own, peer in ((0, 1), (1, 0)):
                if fixed:
                    chosen = small[peer]
                    losses.append(F.cross_entropy(logits[own][chosen], yb[chosen]))
                else:
                    gate = torch.zeros(len(xb))
                    gate[small[peer]] = 1.0
                    mean_loss = F.cross_entropy(logits[own], yb)    # BUG: already a scalar
                    losses.append((gate * mean_loss).sum() / keep)
            loss = losses[0] + losses[1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(pair[0], x_held, y_held)
    return mon
