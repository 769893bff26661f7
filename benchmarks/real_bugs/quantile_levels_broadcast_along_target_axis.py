"""A quantile-regression (QR-DQN style) loss whose quantile levels ``tau`` (shape (N,)) are
broadcast against the wrong axis of the pairwise error table: ``u`` is (B, N predicted
quantiles, M target samples), and a 1-D ``tau`` lines up with the LAST axis - the target
samples - instead of the predicted quantiles. With N == M nothing complains, but every
predicted quantile now gets the same mix of weights, so all of them learn the same value
(about the median): the predicted distribution collapses, and its quantiles are no longer
ordered.

Reported: "A bug report about the loss" - https://github.com/BY571/QR-DQN/issues/1 ("The
variable self.quantile used in loss is a one-dimensional tensor, which would be subtracted by
a 3-dimensional tensor ... the automatical broadcasting way is wrong, which would cause a bug
that Q function violates monotonicity in its output"; users must reshape it by hand). Here
the same quantile Huber loss trains a torch MLP to output N = 8 quantiles of a noisy,
heteroscedastic target, against M = 8 target samples per row (the supervised form of the
QR-DQN target quantiles). Fix: ``tau.view(1, -1, 1)``, so each level weighs its own
predicted quantile.

Measured (400 steps, 2,000 held-out rows): the bug's 8 quantiles lie within 0.008 of each
other on average (the true 1/16-15/16 quantiles are 1.85 apart) and are out of order on
100% of the rows; the fixed twin's spread is 1.42, out of order on 4.3% of the rows.
"""
import torch
from torch import nn

TITLE = "A bug report about the loss"
LINK = "https://github.com/BY571/QR-DQN/issues/1"
EXPECTED = ("QUANTILE_LEVELS_ON_WRONG_AXIS",)
STEPS = 400
FEATURES = 4
BATCH_SIZE = 32
QUANTILES = 8
SAMPLES = 8  # target samples per row: equal to QUANTILES, so the wrong broadcast runs
TAU = (torch.arange(QUANTILES, dtype=torch.float32) + 0.5) / QUANTILES  # midpoints


def draw(x, samples, generator):
    """``samples`` targets per row: mean and spread depend on the features."""
    spread = 0.2 + 0.8 * x[:, :1].sigmoid()
    mean = torch.sin(x[:, 1:2]) + 0.8 * x[:, 2:3]
    return mean + spread * torch.randn(len(x), samples, generator=generator)


def quantile_model():
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, QUANTILES))


def quantile_huber_loss(predicted, targets, fixed, kappa=1.0):
    u = targets.unsqueeze(1) - predicted.unsqueeze(2)  # (B, N, M)
    huber = torch.where(u.abs() <= kappa, 0.5 * u ** 2, kappa * (u.abs() - 0.5 * kappa))
    # BUG (fixed=False): a 1-D tau broadcasts along the last (target) axis
    tau = TAU.view(1, -1, 1) if fixed else TAU
    return ((tau - (u.detach() < 0).float()).abs() * huber / kappa).sum(1).mean()


def held_out(model):
    """Share of rows whose quantiles are out of order, and the spread between the outer
    quantiles on fresh rows, next to the truth's."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2000, FEATURES, generator=g)
    with torch.no_grad():
        predicted = model(x)
    disordered = (predicted.diff(dim=1) < 0).any(dim=1).float().mean()
    width = (predicted[:, -1] - predicted[:, 0]).mean()
    truth = draw(x, 4000, g).quantile(TAU[[0, -1]], dim=1)
    return (round(float(disordered), 3), round(float(width), 3),
            round(float((truth[1] - truth[0]).mean()), 3))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = quantile_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x = torch.randn(BATCH_SIZE, FEATURES, generator=g)
            targets = draw(x, SAMPLES, g)
            optimizer.zero_grad()
            loss = quantile_huber_loss(model(x), targets, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.disordered_width_truth = held_out(model)
    return mon
