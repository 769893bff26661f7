"""A two-output regression trained with one MSE over targets of very different sizes: one
column varies by tenths around 0.4, the other by several units around -22. The squared
errors of the large column are hundreds of times those of the small one, so the shared
layers are shaped for the large column alone and the small one is fitted from features
made for the other: it comes out poorly, while the loss, ruled by the large column, looks
fine.

Reported: "Two-dimensional MSE loss in MLP training" -
https://discuss.pytorch.org/t/two-dimensional-mse-loss-in-mlp-training/180059 (two targets
"of very different magnitude: mean of the first is ~ 0.4, mean of the second ~ -22 ...
One variable is predicted pretty good - but the other is predicted completely wrong,
following the shape of the first variable"). Here an MLP reads 8 standardised features;
the small target (std 0.15 around 0.4) depends on features 0-3, the large one (std 8
around -22) on features 4-7. Fix: standardise each target column with its own mean and
std (and undo it on the predictions).

Measured (300 steps, 2,000 held-out rows, R^2 per column in the original units): the bug's
small column reaches R^2 -0.06 (no better than its mean) against 0.93 for the fixed twin;
the large column 0.65 against 0.93 (its mean of -22 is first learned through the bias).
"""
import torch
from torch import nn

TITLE = "Two-dimensional MSE loss in MLP training"
LINK = "https://discuss.pytorch.org/t/two-dimensional-mse-loss-in-mlp-training/180059"
EXPECTED = ("TARGET_COLUMNS_ON_DIFFERENT_SCALES",)
STEPS = 300
FEATURES = 8
BATCH_SIZE = 64


def table(rows, seed):
    """Standardised features and two targets: small (mean 0.4, std ~0.15) from features
    0-3, large (mean -22, std ~8) from features 4-7, both non-linear."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, FEATURES, generator=g)
    small = torch.tanh(x[:, 0] * x[:, 1]) + torch.sin(x[:, 2]) - 0.5 * x[:, 3] ** 2
    large = torch.sin(x[:, 4]) + x[:, 5] * x[:, 6] + 0.5 * x[:, 7]
    noise = 0.05 * torch.randn(rows, 2, generator=g)
    small = 0.4 + 0.15 * (small - small.mean()) / small.std()
    large = -22 + 8 * (large - large.mean()) / large.std()
    return x, torch.stack([small, large], dim=1) + noise * torch.tensor([0.15, 8.0])


def regressor():
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 2))


def r_squared(predicted, y):
    return 1 - ((predicted - y) ** 2).mean(0) / y.var(0, unbiased=False)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = table(4000, seed=0)
    mean, std = y.mean(0), y.std(0)
    # BUG (fixed=False): the raw targets go into the loss; fixed: each column standardised
    targets = (y - mean) / std if fixed else y
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH_SIZE,), generator=g)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[rows]), targets[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        x_test, y_test = table(2000, seed=1)
        predicted = model(x_test)
        if fixed:
            predicted = predicted * std + mean
        mon.r2_small_large = tuple(round(float(v), 3) for v in r_squared(predicted, y_test))
    return mon
