"""Synthetic observational data with known potential outcomes, and a TARNet-style network
(batch 209: causal inference and uplift modelling).

Each unit has 10 standard-normal covariates x; its treatment T ~ Bernoulli(e(x)) with a
propensity e(x) = sigmoid(PROP_SCALE * (x0 - 0.5 x1) + PROP_SHIFT) (confounded: x0 also moves
the outcome); its potential outcomes are mu0(x) = x0 + 0.5 x2^2 - 0.5 + sin(2 x3) and
mu1(x) = mu0(x) + tau(x), tau(x) = 1 + x1 + 0.5 x4, and the observed outcome is
y = mu_T(x) + NOISE * eps. A held-out set keeps both potential outcomes, so the PEHE
(root mean squared error of the estimated individual effect mu1_hat - mu0_hat against tau)
measures how well a model recovers the treatment effect (lower is better)."""
import torch
from torch import nn

FEATURES = 10
NOISE = 0.5
PROP_SCALE = 1.0
TRAIN, HELD_OUT = 1600, 800


def observational(prop_shift=0.0, n_train=TRAIN, n_test=HELD_OUT):
    """A dict of train tensors x, t, y (float32, t and y shape (N,)) and held-out tensors
    x_test, t_test, mu0_test, mu1_test, e_test (the true propensity). Drawn from the torch
    generator, so the caller's torch.manual_seed fixes it."""
    n = n_train + n_test
    x = torch.randn(n, FEATURES)
    e = torch.sigmoid(PROP_SCALE * (x[:, 0] - 0.5 * x[:, 1]) + prop_shift)
    t = torch.bernoulli(e)
    mu0 = x[:, 0] + 0.5 * x[:, 2] ** 2 - 0.5 + torch.sin(2 * x[:, 3])
    mu1 = mu0 + 1 + x[:, 1] + 0.5 * x[:, 4]
    y = torch.where(t > 0, mu1, mu0) + NOISE * torch.randn(n)
    return {"x": x[:n_train], "t": t[:n_train], "y": y[:n_train],
            "x_test": x[n_train:], "t_test": t[n_train:], "mu0_test": mu0[n_train:],
            "mu1_test": mu1[n_train:], "e_test": e[n_train:]}


class TARNet(nn.Module):
    """A shared representation and one outcome head per arm; with ``propensity=True`` a
    DragonNet-style treatment head on the representation as well. forward returns
    (y0, y1, t_logit or None), each shape (N,)."""

    def __init__(self, inputs=FEATURES, hidden=64, head=32, propensity=False):
        super().__init__()
        self.rep = nn.Sequential(nn.Linear(inputs, hidden), nn.ELU(), nn.Linear(hidden, hidden),
                                 nn.ELU())
        self.head0 = nn.Sequential(nn.Linear(hidden, head), nn.ELU(), nn.Linear(head, 1))
        self.head1 = nn.Sequential(nn.Linear(hidden, head), nn.ELU(), nn.Linear(head, 1))
        self.treat = nn.Linear(hidden, 1) if propensity else None

    def forward(self, x):
        z = self.rep(x)
        t_logit = self.treat(z).squeeze(1) if self.treat is not None else None
        return self.head0(z).squeeze(1), self.head1(z).squeeze(1), t_logit


def pehe(model, data):
    """Root mean squared error of the held-out estimated effects against the true ones."""
    with torch.no_grad():
        y0, y1, _ = model(data["x_test"])
    tau = data["mu1_test"] - data["mu0_test"]
    return float(((y1 - y0 - tau) ** 2).mean().sqrt())


def index_batches(n, steps, batch_size=64):
    """``steps`` batches of row indices, reshuffled every epoch, from the torch generator
    (drawn after the caller's torch.manual_seed)."""
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10**6, ())))
    done = 0
    while True:
        order = torch.randperm(n, generator=g)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return
