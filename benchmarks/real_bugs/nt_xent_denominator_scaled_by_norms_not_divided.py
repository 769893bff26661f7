"""A SimCLR NT-Xent loss written by hand whose numerator takes the cosine similarity of
the positive pair (dot product DIVIDED by the two norms) but whose denominator MULTIPLIES
each dot product by the two norms. The denominator's terms grow with the fourth power of
the projections' length, so the cheapest way down is to shrink every projection towards
zero: then each negative term is exp(0) = 1 whatever the direction, nothing pushes the
images apart any more, and only the positive pair's cosine is left to maximise - which a
collapsed encoder satisfies. The loss falls smoothly; what the encoder learnt is poor.

Reported: "A problem in loss.py" - https://github.com/sunjesse/pytorch-simclr/issues/1
("In line 17: den = norm * b * ..... , but in line 23: num = b / norm, i wonder if both
of them are b / norm"; a second user worked the maths through to the same conclusion and
the author: "This issue is fixed now"). Here a digits MLP encoder trained with that loss
on two random views of each digit (shift, pixel mask, noise), Adam; a nearest-centroid
probe reads the encoder's normalised features on augmented held-out digits.
Fix: cosine similarity in the denominator too (dot product divided by the norms).

Measured (300 steps, batch 128): held-out probe accuracy 0.095 for the bug against 0.608
for the fixed twin at seed 0; seeds + 1000: 0.119 against 0.618 (the untrained encoder
scores 0.227 and 0.251: the bug ends below it). The bug's loss falls 4.20 -> 3.54.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ssl179 import digits, probe_accuracy, two_view_batches
from benchmarks.real_bugs._ssl_digits import encoder

TITLE = "A problem in loss.py"
LINK = "https://github.com/sunjesse/pytorch-simclr/issues/1"
EXPECTED = ("COLLAPSED_ACTIVATIONS",)
STEPS = 300
TEMPERATURE = 0.5


def nt_xent_by_hand(z1, z2, fixed):
    z = torch.cat([z1, z2])
    n = len(z1)
    dots = z @ z.T
    norms = z.norm(dim=1)
    outer = norms[:, None] * norms[None, :]
    cosine = dots / outer
    partner = (torch.arange(2 * n) + n) % (2 * n)
    num = torch.exp(cosine[torch.arange(2 * n), partner] / TEMPERATURE)
    if fixed:
        others = cosine
    else:   # BUG: the denominator's similarities multiplied by the norms, not divided
        others = dots * outer
    off_diagonal = ~torch.eye(2 * n, dtype=torch.bool)
    den = (torch.exp(others / TEMPERATURE) * off_diagonal).sum(1)
    return -torch.log(num / den).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            loss = nt_xent_by_hand(model(v1), model(v2), fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_probe_accuracy = probe_accuracy(model, x, y)
    return mon
