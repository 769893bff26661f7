"""Co-teaching written by hand whose loss on the peer's small-loss samples is divided by
the number of kept samples twice: ``F.cross_entropy(logits[chosen], labels[chosen])`` is
already the mean over the kept samples, and the script then takes ``torch.sum(...) /
num_remember`` of that scalar. Every step's gradient is 1/num_remember (here 1/64 at first,
about 1/38 once the forget rate reached 40%) of the intended one. Under plain SGD with
momentum that is the learning rate cut by the same factor: the loss falls slowly, the run
finishes without a warning, and the two networks are far from trained at the end.

Reported: "no need to calculate average after F.cross_entropy in loss.py" -
https://github.com/bhanML/Co-teaching/issues/9 ("there is no need to do
torch.sum(loss_1_update)/num_remember", F.cross_entropy already returns the average; a
comment on issue #4 of the same repository: "the loss value is normalized twice").
Here: two MLPs (64 -> 256 -> 10) co-taught on the 8x8 digits (1,300 training images with
40% symmetric label noise, 497 clean held-out images), SGD (lr 0.1, momentum 0.9), batches
of 64, the forget rate ramped linearly to the noise rate over the first 100 steps, each
network updated on the samples its peer finds easiest.
Fix: use the mean cross-entropy of the kept samples as it is (no second division).

Measured (held-out accuracy of the first network, 300 steps): 0.547 with the bug, 0.922
fixed; seeds + 1000: 0.533 vs 0.924.
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import accuracy, digits_split, symmetric_noise

TITLE = "no need to calculate average after F.cross_entropy in loss.py"
LINK = "https://github.com/bhanML/Co-teaching/issues/9"
EXPECTED = ("LOSS_DIVIDED_BY_BATCH_SIZE", "LR_TOO_LOW")
STEPS = 300
NOISE = 0.4
BATCH = 64
RAMP_STEPS = 100


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    noisy, _ = symmetric_noise(y, NOISE)
    pair = torch.nn.ModuleList([mlp(hidden=256), mlp(hidden=256)])
    optimizer = torch.optim.SGD(pair.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(pair, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(x), steps, BATCH)):
            xb, yb = x[index], noisy[index]
            forget_rate = NOISE * min(1.0, step / RAMP_STEPS)
            num_remember = max(1, math.ceil((1 - forget_rate) * len(xb)))
            logits = [net(xb) for net in pair]
            with torch.no_grad():
                ranked = [F.cross_entropy(z, yb, reduction="none").argsort() for z in logits]
            losses = []
            for own, peer in ((0, 1), (1, 0)):
                chosen = ranked[peer][:num_remember]
                loss_update = F.cross_entropy(logits[own][chosen], yb[chosen])
                if not fixed:
                    loss_update = torch.sum(loss_update) / num_remember   # BUG: a mean, again
                losses.append(loss_update)
            loss = losses[0] + losses[1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(pair[0], x_held, y_held)
    return mon
