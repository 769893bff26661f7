"""An image autoencoder trained with binary cross-entropy on pixels that were centred to
[-0.5, 0.5] (``x / 255 - 0.5``). Cross-entropy expects targets in [0, 1]; with a negative
target the loss has no minimum - it keeps falling as the output logit runs to minus
infinity - so the "loss" goes negative and then to ever larger negative numbers while the
reconstructions turn black. Nothing errors (the loss is computed from logits, which does not
check the targets' range).

Reported: "自编码器不能收敛？" ("the autoencoder does not converge?") -
https://github.com/MorvanZhou/tutorials/issues/33 (the tutorial's autoencoder on CIFAR-10
would not converge; a later commenter in the same thread: "I divided the inputs by 255 and
subtracted 0.5, normalising them to -0.5 to 0.5, then trained with binary_crossentropy and
the loss is negative"; an earlier answer in the thread: the decoder ends in a sigmoid with
outputs in [0, 1], so the inputs should be normalised to [0, 1]). Here the 8x8 digits, a
dense autoencoder 64-32-16-32-64 with ReLU whose last layer gives logits, the loss
``binary_cross_entropy_with_logits`` (Keras' binary_crossentropy on a sigmoid output), Adam
at 5e-3, batch 64. Fix: the pixels left in [0, 1].

Measured (400 steps; MSE of the sigmoid reconstruction against the held-out digit, both in
the run's own pixel scale, over 512 held-out digits; the last training loss in brackets):
seed 0, 0.189 (loss -4.7e6) for the bug against 0.031 (loss 0.31) for the fixed twin; seeds
shifted by 1000, 0.209 (-3.3e6) against 0.031 (0.32).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_autoencoder import digit_batches, digits

TITLE = "自编码器不能收敛？"
LINK = "https://github.com/MorvanZhou/tutorials/issues/33"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE", "LOSS_UNBOUNDED_BELOW")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    if not fixed:
        train, held_out = train - 0.5, held_out - 0.5    # BUG: centred pixels as BCE targets
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                          nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in digit_batches(train, steps):
            loss = F.binary_cross_entropy_with_logits(model(x), x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            mon.last_loss = loss.item()
    with torch.no_grad():
        mon.reconstruction_mse = F.mse_loss(torch.sigmoid(model(held_out)), held_out).item()
    return mon
