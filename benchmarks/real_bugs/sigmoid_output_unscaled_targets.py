"""A network ending in a sigmoid, trained with an L2 loss on targets in raw units: the
sigmoid can never exceed 1, the targets go up to 16, so the output saturates at 1 for
every bright pixel, the gradient through the saturated sigmoid vanishes, and the loss
stays far above what an unbounded output reaches.

Reported: "Understanding of the sigmoid activation function as last layer in network" -
https://stats.stackexchange.com/questions/332591 (two CNNs, one ending in CONV + SIGMOID,
L2 loss: the sigmoid one "does never get near the solution"; the answer: "Say your ground
truth pixel value is 250 and you want sigmoid to predict 250. Sigmoid predicts a number
closer to 1 (that's the maximum it can output)"). Here a denoiser of the 8x8 digits: noisy
pixels in, the clean image out, the targets left in the data's raw 0-16 range.
Fix: scale the targets into the output's range (divide by 16).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import DIGITS, batches, train_watched

TITLE = "Understanding of the sigmoid activation function as last layer in network"
LINK = "https://stats.stackexchange.com/questions/332591"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    with np.load(DIGITS) as archive:
        raw = torch.from_numpy(archive["images"].astype(np.float32).reshape(-1, 64))
    noisy = (raw / 16 + 0.2 * torch.randn(raw.shape)).clamp(0, 1)
    clean = raw / 16 if fixed else raw                   # BUG: targets in 0..16
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.MSELoss(), batches(noisy, clean, steps),
                         **watch)
