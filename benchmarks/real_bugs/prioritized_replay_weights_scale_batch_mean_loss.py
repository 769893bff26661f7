"""Prioritized replay whose importance-sampling weights multiply a loss that is already the
batch mean. Transitions are drawn in proportion to their last error (to the power alpha), so
rare large rewards - which keep a large error - are replayed several times as often as the
common small ones. The weights ``(N P(i))^-beta`` exist to undo exactly that skew, one per
sample; here they multiply ``mse_loss(pred, target)``, a single number, so every sample in
the batch gets the batch's mean weight and the skew stays. The value regression then
converges to the mean of the prioritized distribution, not of the data: its estimates are
pulled toward the rare big rewards. The loss falls and looks healthy - it is the right loss
of the wrong distribution.

Reported: "Importance Sampling" - https://github.com/rlcode/per/issues/3 (the repository's
prioritized memory computed and returned ``is_weights`` that the DQN never used; the first
proposed fix, ``(torch.FloatTensor(is_weights) * F.mse_loss(pred, target)).mean()``, scales
the already averaged MSE, and a later comment points out that torch's MSE is the batch
average, so each sample's loss must be kept (``reduction='none'``), multiplied by its own
weight, then averaged). Here the value regression on its own (a fixed replay buffer of 4,096
contexts of 8 features; the reward is a smooth function of the context plus a skewed noise:
+6 with probability 0.1, else -2/3, mean 0), priorities ``|error| + 0.01`` (alpha 1) updated
from each sampled batch, beta 1, an MLP and Adam. Fix: per-sample squared errors, each times its
own weight, averaged.

Measured (1,500 steps of 256; held-out mean squared error of the predicted expected reward
against the true one on 2,048 new contexts - whose variance is about 0.5 - and the mean
bias of the prediction): seed 0, MSE 1.00 for the bug against 0.25 for the fixed twin
(bias +0.84 against +0.05); seeds shifted by 1000, MSE 1.02 against 0.20 (bias +0.89
against +0.02). Both runs' weighted losses swing widely from batch to batch (the rare +6
rewards, replayed by priority): watch says LOSS_OSCILLATING on the fixed twin as well.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd

TITLE = "Importance Sampling"
LINK = "https://github.com/rlcode/per/issues/3"
EXPECTED = ("IMPORTANCE_WEIGHTS_ON_REDUCED_LOSS",)
STEPS = 1500
BATCH, BUFFER, FEATURES = 256, 4096, 8
ALPHA, BETA, EPS = 1.0, 1.0, 0.01
BIG, RARE = 6.0, 0.1          # reward noise: +6 with probability 0.1, else -2/3 (mean 0)


def expected_reward(x, w):
    return torch.sin(x @ w[:, 0]) + 0.5 * torch.tanh(x @ w[:, 1])


def noisy_rewards(x, w, generator):
    big = torch.rand(len(x), generator=generator) < RARE
    noise = torch.where(big, torch.tensor(BIG), torch.tensor(-BIG * RARE / (1 - RARE)))
    return expected_reward(x, w) + noise


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    w = torch.randn(FEATURES, 2, generator=g) / FEATURES ** 0.5
    x = torch.randn(BUFFER, FEATURES, generator=g)
    r = noisy_rewards(x, w, g)
    x_test = torch.randn(2048, FEATURES, generator=g)
    priority = np.ones(BUFFER)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            p = priority ** ALPHA
            p = p / p.sum()
            idx = rng.choice(BUFFER, BATCH, p=p)
            is_w = (BUFFER * p[idx]) ** -BETA
            is_w = torch.tensor(is_w / is_w.max(), dtype=torch.float32)
            pred = model(x[idx]).squeeze(1)
            if fixed:
                loss = (is_w * F.mse_loss(pred, r[idx], reduction="none")).mean()
            else:        # BUG: the weights scale the batch's mean, not each sample
                loss = (is_w * F.mse_loss(pred, r[idx])).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            priority[idx] = (pred - r[idx]).abs().detach().numpy() + EPS
    with torch.no_grad():
        error = model(x_test).squeeze(1) - expected_reward(x_test, w)
    mon.held_out_value_mse = error.pow(2).mean().item()
    mon.held_out_value_bias = error.mean().item()
    return mon
