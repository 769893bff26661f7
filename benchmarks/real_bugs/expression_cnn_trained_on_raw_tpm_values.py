"""A DNA CNN regressing gene expression trained on raw TPM values: the targets run from about
1 to several thousand, heavy-tailed, and a mean-squared error on them is ruled by the few
highest genes, while the network's output starts near 0. With a small learning rate the
predictions stay squeezed into a narrow band and the sequence features that set expression
for most genes are barely learned.

Reported: "prediction of CNN is limited to certain value" -
https://stackoverflow.com/questions/76713693 (a one-hot DNA CNN from a Medium tutorial,
Conv1d(4, 32, 3) -> ReLU -> Flatten -> Linear, trained on gene expression in TPM, lr 1e-5;
its predictions covered only a narrow range (slope 0.07 against the truth); the answer: the
values spread over orders of magnitude, pass log(X) / 5 instead of X). Here 60-base promoters
whose log-expression adds up copies of two motifs (one raising, one lowering it) plus noise,
TPM = exp of it, the tutorial's CNN, Adam. Fix: train on log(TPM) / 5 (and exponentiate the
prediction).

Measured (1000 new promoters; 300 Adam steps at 3e-3, batch 32; R^2 of the predicted
log-expression, the bug's prediction clamped at 1 TPM before the log): seed 0, held-out log
R^2 -0.46 vs 0.50; seeds + 1000: -0.38 vs 0.54 (the rank correlation barely differs, 0.69
vs 0.71 and 0.70 vs 0.74: the bug's predictions keep the order but not the scale).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._geno import index_batches, motif_ids, one_hot, plant, \
    random_ids, spearman

TITLE = "prediction of CNN is limited to certain value"
LINK = "https://stackoverflow.com/questions/76713693"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300
LENGTH = 60
UP, DOWN = motif_ids("TATAAT"), motif_ids("GCGCGC")


def promoters(n, rng):
    """(one-hot (n, 4, LENGTH), TPM (n,)): log TPM = 3 + 1.3 x up-copies - 1.0 x down-copies
    + noise."""
    ids = random_ids(n, LENGTH, rng)
    ups = rng.integers(0, 4, n)
    downs = rng.integers(0, 3, n)
    for copies, motif in ((ups, UP), (downs, DOWN)):
        for c in range(1, copies.max() + 1):
            plant(ids, np.flatnonzero(copies >= c), motif, rng)
    log_tpm = 3 + 1.3 * ups - 1.0 * downs + rng.normal(0, 0.3, n)
    return one_hot(ids), torch.from_numpy(np.exp(log_tpm)).float()


class DNACNN(nn.Module):
    """The tutorial's model: Conv1d(4, 32, 3) -> ReLU -> Flatten -> Linear(., 1)."""

    def __init__(self, filters=32, kernel=3):
        super().__init__()
        self.conv_net = nn.Sequential(
            nn.Conv1d(4, filters, kernel), nn.ReLU(), nn.Flatten(),
            nn.Linear(filters * (LENGTH - kernel + 1), 1))

    def forward(self, x):
        return self.conv_net(x).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, tpm = promoters(2000, rng)
    test_x, test_tpm = promoters(1000, rng)
    target = torch.log(tpm) / 5 if fixed else tpm     # BUG when not fixed: raw TPM
    model = DNACNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), target[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(test_x)
        log_pred = 5 * out if fixed else torch.log(out.clamp_min(1.0))
        truth = torch.log(test_tpm)
        mon.held_out_spearman = spearman(out, test_tpm)
        mon.held_out_log_r2 = float(1 - ((log_pred - truth) ** 2).mean() / truth.var())
    return mon
