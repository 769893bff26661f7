"""A two-quantile pinball loss whose target arrives as a column, (B, 1), while each quantile's
prediction is taken as ``preds[:, i]``, shape (B,): ``target - preds[:, i]`` broadcasts to a
(B, B) table of every prediction against every target of the batch. Each head then learns
the quantile of the whole batch's targets, not of its own row's, and the "interval" becomes
one constant band that ignores the input.

Reported: "Quantile Loss Or Pinball loss not properly implemented" -
https://github.com/ml-stat-Sustech/TorchCP/issues/27 (the library's ``QuantileLoss``
documents the target as "batch x 1" and computes ``errors = target - preds[:, i]``; the
reporter found their error tensor "shaped 64x64", and the maintainers answered that the
loss had "some miswriting" and rewrote it). Here that loss trains a torch MLP that predicts
the 0.05 and 0.95 quantiles of a noisy, heteroscedastic target, fed the target as (B, 1) the
way the docstring asks. Fix: compare like with like, ``target[:, 0] - preds[:, i]``.

Measured (400 steps, 2,000 held-out rows): the bug's mean pinball loss (both heads) is
0.234 and its band holds 91.0% of the rows at one width everywhere; the fixed twin's pinball
loss is 0.124 (87.4% inside a band that widens where the noise does).
"""
import torch
from torch import nn

TITLE = "Quantile Loss Or Pinball loss not properly implemented"
LINK = "https://github.com/ml-stat-Sustech/TorchCP/issues/27"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 400
FEATURES = 4
BATCH_SIZE = 64
QUANTILES = (0.05, 0.95)


def table(rows, seed):
    """A target whose mean and spread both depend on the features."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, FEATURES, generator=g)
    spread = 0.1 + 0.9 * x[:, 0].sigmoid()
    y = torch.sin(x[:, 1]) + 0.8 * x[:, 2] + spread * torch.randn(rows, generator=g)
    return x, y


def interval_model():
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, len(QUANTILES)))


def pinball(preds, target, fixed):
    """The library's loss: ``target`` is (B, 1) as documented."""
    losses = []
    for i, q in enumerate(QUANTILES):
        # BUG (fixed=False): (B, 1) - (B,) broadcasts to (B, B)
        errors = target[:, 0] - preds[:, i] if fixed else target - preds[:, i]
        losses.append(torch.max((q - 1) * errors, q * errors).unsqueeze(1))
    return torch.mean(torch.sum(torch.cat(losses, dim=1), dim=1))


def held_out_pinball(model):
    """Mean pinball loss of both heads on fresh rows, and the share inside the interval."""
    with torch.no_grad():
        x, y = table(2000, seed=1)
        preds = model(x)
        total = 0.0
        for i, q in enumerate(QUANTILES):
            errors = y - preds[:, i]
            total += float(torch.max((q - 1) * errors, q * errors).mean())
        inside = ((y >= preds[:, 0]) & (y <= preds[:, 1])).float().mean()
    return round(total, 4), round(float(inside), 3)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = table(4000, seed=0)
    model = interval_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH_SIZE,), generator=g)
            optimizer.zero_grad()
            loss = pinball(model(x[rows]), y[rows].unsqueeze(1), fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.pinball_and_coverage = held_out_pinball(model)
    return mon
