"""A mixture density network trained with its standard deviations as the SCALE of each
diagonal Gaussian (``MultivariateNormalDiag(loc=mu, scale_diag=sigma)``) is sampled with
those same numbers put on the diagonal of a COVARIANCE matrix
(``np.random.multivariate_normal(mu, np.identity(d) * sigma)``): every draw has standard
deviation sqrt(sigma) where sigma was learned. Training is untouched - the loss, the
gradients and the learned parameters are exactly right - but every generated point is
spread too wide wherever the learned sigma is below 1 (a pen offset of 0.05 is sampled
with a spread of 0.22), and too narrow above 1. Users then turn the sampling
temperature down until the output looks clean, hiding the error.

Reported: "Check sampling procedure" -
https://github.com/cpmpercussion/keras-mdn-layer/issues/19 (the author: "the output from
the mixture density layer are treated as `scale` variables in
`tfp.distributions.MultivariateNormalDiag` ... it seems we should have been squaring the
cov_matrix before putting it into the multivariate normal sampling procedure. This could
explain why we end up having to scale _down_ the sigma variable so much in real-world
applications"; then "the scale vector should have been squared before using as a covariance
matrix, so this is now the current behaviour"). Here the layer's set-up: a small MLP feeds an
MDN head (mus linear, sigmas ELU + 1 + eps, pi as logits) with 4 components over a 2-D pen
offset that flips between two branches along the input, trained with the exact
mixture NLL, Adam; then 16 draws per held-out input with the layer's
``sample_from_output`` procedure (component from the pi logits, then the numpy draw).
Fix: ``cov_matrix = np.identity(d) * sig_vector ** 2``.

No finding code names a sampler that reads a scale as a variance; the nearest is
VAE_NOISE_SCALED_BY_VARIANCE (a reparameterised draw whose noise is multiplied by the
variance where the standard deviation is meant), the same std / variance swap at a draw.

Measured (held-out energy score of the 16 draws against the true offset, lower is better):
0.261 with the bug, 0.204 fixed; seeds + 1000: 0.215 vs 0.149.
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd

TITLE = "Check sampling procedure"
LINK = "https://github.com/cpmpercussion/keras-mdn-layer/issues/19"
EXPECTED = ("VAE_NOISE_SCALED_BY_VARIANCE",)
STEPS = 300
D, K = 2, 4                       # output dimension, mixture components
N_TRAIN, N_TEST, BATCH, DRAWS = 2048, 256, 128, 16


def offsets(n):
    """x in [-1, 1] (the writing context); y = the next pen offset: a unit step at angle
    1.5 x, forward or back as sin(5 x) says (the stroke turns back at each of its zeros),
    plus noise of 0.05 - one branch for most inputs, two close to the turning points."""
    x = torch.rand(n, 1) * 2 - 1
    branch = torch.sign(torch.sin(5 * x))
    angle = 1.5 * x
    y = branch * torch.cat([torch.cos(angle), torch.sin(angle)], 1)
    return x, y + 0.05 * torch.randn(n, D)


class MDN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                                  nn.Tanh())
        self.mus = nn.Linear(hidden, K * D)
        self.sigmas = nn.Linear(hidden, K * D)
        self.pis = nn.Linear(hidden, K)

    def forward(self, x):
        h = self.body(x)
        sigma = F.elu(self.sigmas(h)) + 1 + 1e-7          # the layer's elu_plus_one_plus_epsilon
        return self.mus(h).view(-1, K, D), sigma.view(-1, K, D), self.pis(h)


def mixture_nll(mu, sigma, logits, y):
    comp = torch.distributions.Normal(mu, sigma).log_prob(y.unsqueeze(1)).sum(-1)
    return -torch.logsumexp(F.log_softmax(logits, 1) + comp, 1).mean()


def sample_from_output(mu, sigma, logits, fixed, draws=DRAWS):
    """``draws`` draws per row, as the layer's sampler makes them: a component from the pi
    logits, then a Gaussian with the diagonal covariance it builds (numpy's global generator;
    ``mu + sqrt(diag(cov)) * N(0, 1)`` is ``np.random.multivariate_normal`` for a diagonal
    covariance, written out so that all rows draw at once)."""
    probs = torch.softmax(logits.double(), 1).numpy()
    u = np.random.random_sample((len(mu), draws, 1))
    k = (u > np.cumsum(probs, 1)[:, None, :]).sum(-1).clip(max=K - 1)     # (rows, draws)
    rows = np.arange(len(mu))[:, None]
    mus_vector, sig_vector = mu.numpy()[rows, k], sigma.numpy()[rows, k]  # (rows, draws, D)
    if fixed:
        cov_diag = sig_vector ** 2
    else:
        cov_diag = sig_vector               # BUG: the scale used as the covariance's diagonal
    return mus_vector + np.sqrt(cov_diag) * np.random.standard_normal(mus_vector.shape)


def energy_score(draws, y):
    """Mean over rows of E||S - y|| - 0.5 E||S - S'|| (draws (R, M, D), y (R, D))."""
    to_y = np.linalg.norm(draws - y[:, None], axis=-1).mean(1)
    spread = np.linalg.norm(draws[:, :, None] - draws[:, None], axis=-1).mean((1, 2))
    return float((to_y - 0.5 * spread).mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    x, y = offsets(N_TRAIN)
    x_test, y_test = offsets(N_TEST)
    model = MDN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, N_TRAIN, (BATCH,))
            loss = mixture_nll(*model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
        model.eval()
        with torch.no_grad():
            mu, sigma, logits = model(x_test)
        draws = sample_from_output(mu, sigma, logits, fixed)
    mon.held_out_energy_score = energy_score(draws, y_test.numpy())
    return mon
