"""An instance-norm image translator built with ``InstanceNorm2d(track_running_stats=True)``
and run in ``model.eval()`` at test time: in eval mode such a layer stops normalising each
image by its own statistics and uses running averages collected over the training images,
i.e. it turns into a batch norm with frozen statistics. The network was trained on
per-image normalised features, so every test image whose contrast differs from the
average comes out wrong. Training (which normalises per image) shows nothing.

Reported: "Instance norm during evaluation" -
https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/395 (with
``track_running_stats`` True in InstanceNorm the model behaves differently in training and
in evaluation; the maintainers: "Let's set it to false", and the flag was changed). Here a
small paired translator on two-colour 8x8 digits (benchmarks/real_bugs/_i2i.py): the input
is the digit drawn in the first channel with its ink dimmed by a random factor per image
(0.2 to 1), the target the full-contrast digit in the second channel, L1 loss; the 297
held-out digits are translated after ``model.eval()``. Fix: ``track_running_stats=False``
(the default: instance statistics in training and in evaluation alike).

Measured (300 Adam steps, batch 32, MSE in [-1, 1] units on the held-out digits in eval
mode): 0.0388 for the bug, 0.0026 for the fixed twin (seed 0); seeds + 1000: 0.0378 vs
0.0033.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._i2i import HELD_OUT, digits_pm1, to_a, to_b, translator

TITLE = "Instance norm during evaluation"
LINK = "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/395"
EXPECTED = ("NORM_STATISTICS_SHARED_ACROSS_SITES",)
STEPS = 300


def dimmed(digits, gain):
    """The digits (in [-1, 1]) with their ink scaled by ``gain`` per image."""
    return (digits + 1) * gain.view(-1, 1, 1, 1) - 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = digits_pm1()
    train, held_out = x[:-HELD_OUT], x[-HELD_OUT:]
    held_out_gain = 0.2 + 0.8 * torch.rand(len(held_out))
    model = translator(track_running_stats=not fixed)   # BUG when not fixed: running stats
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 32, seed=0):
            digits = train[index]
            gain = 0.2 + 0.8 * torch.rand(len(digits))
            loss = F.l1_loss(model(to_a(dimmed(digits, gain))), to_b(to_a(digits)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()                                  # the test script's eval()
    with torch.no_grad():
        out = model(to_a(dimmed(held_out, held_out_gain)))
        mon.held_out_error = F.mse_loss(out, to_b(to_a(held_out))).item()
    return mon
