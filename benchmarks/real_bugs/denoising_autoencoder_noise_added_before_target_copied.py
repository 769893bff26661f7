"""A denoising autoencoder whose training loop adds the noise to the batch and only then
copies the batch into the target: ``x = add_noise(x); y = x``. Input and target are the
same noisy image, so the network is fitted to reproduce the noise it was meant to remove
(the identity is the best answer); the loss falls like any reconstruction loss and nothing
errors, but the "denoised" outputs keep much of the noise.

Reported: "소스코드에 순서가 변경된 것 같습니다." ("the order in the source code seems to have
been changed") - https://github.com/keon/3-min-pytorch/issues/18 (the book's
denoising_autoencoder notebook ran ``x = add_noise(x)`` before ``y = x.view(...)``: "this
way the noise is added to y as well, so x and y are the same; shouldn't only the input
have noise?"; the author: "Thanks, you are right", the intended code keeping ``noisy_x``
for the input and the clean ``x`` for the target). Here the notebook's shape on the 8x8
digits: a dense autoencoder 64-128-32-128-64 with ReLU and a sigmoid output, fresh Gaussian
noise for every batch (std 0.5: the digits' 64 pixels need more than the book's 0.2 on 784
for the difference to show), Adam at 5e-3, MSE. Fix: noise on the input only, the clean
batch as the target.

Measured (400 steps, batch 64; MSE between the output for a noisy held-out digit and the
clean digit, over 512 held-out digits, the noisy input itself scoring 0.25): seed 0, 0.065
for the bug against 0.037 for the fixed twin; seeds shifted by 1000, 0.067 against 0.036.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_autoencoder import digit_batches, digits

TITLE = "소스코드에 순서가 변경된 것 같습니다."
LINK = "https://github.com/keon/3-min-pytorch/issues/18"
EXPECTED = ("TARGETS_AUGMENTED_WITH_INPUTS",)
STEPS = 400
NOISE = 0.5


def add_noise(x):
    return x + NOISE * torch.randn_like(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    noisy_held_out = add_noise(held_out)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32), nn.ReLU(),
                          nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 64), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in digit_batches(train, steps):
            if fixed:
                noisy_x = add_noise(x)
                y = x
            else:
                x = add_noise(x)            # BUG: the noise goes in before the target copy
                noisy_x = x
                y = x                       # ... so the target is the noisy image too
            loss = F.mse_loss(model(noisy_x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.denoised_mse = F.mse_loss(model(noisy_held_out), held_out).item()
    return mon
