"""A recurrent mixture-density model (an MDN-RNN) whose mixture weights are normalised over
the wrong axis: its scores for the K components come out (seq_len, batch, K), and
``log_softmax(pi, dim=-2)`` normalises each component's weight across the batch instead of
across the components. Every sample's weights then sum to anything but one (about K /
batch), the likelihood the loss maximises is not a density, and the model is pushed to
share weight out between samples rather than between its components.

Reported: "Wrong dimension for pi softmax" - https://github.com/ctallec/world-models/issues/10
("pi = pi.view(seq_len, bs, self.gaussians); logpi = f.log_softmax(pi, dim=-2) ... Here the
softmax is done over the batch dimension of pi. Shouldn't the softmax be done over the
gaussians dimension (ie. dim=-1 instead of dim=-2)?"; the author: "You are right ! I'm
fixing this"). Here a GRU reads a digit's rows top to bottom (8 rows of 8 pixels) and
predicts the next row with a mixture of 5 diagonal Gaussians, trained by its negative
log-likelihood as in world-models' ``gmm_loss``.

Measured (300 steps, 256 held-out digits, next-row negative log-likelihood per row with the
weights normalised over the components for both runs): -5.15 nats with the bug, -6.84
fixed.
Fix: ``log_softmax(pi, dim=-1)``.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Wrong dimension for pi softmax"
LINK = "https://github.com/ctallec/world-models/issues/10"
EXPECTED = ("SOFTMAX_OVER_BATCH_AXIS",)
STEPS = 300
GAUSSIANS = 5
ROW = 8
HELD_OUT = 256


class MixtureRNN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.rnn = nn.GRU(ROW, hidden)
        self.head = nn.Linear(hidden, GAUSSIANS * (2 * ROW + 1))

    def forward(self, rows):                           # (seq_len, batch, 8)
        out = self.head(self.rnn(rows)[0])
        seq_len, bs = rows.shape[:2]
        mus, sigmas, pi = torch.split(out, [GAUSSIANS * ROW, GAUSSIANS * ROW, GAUSSIANS], -1)
        mus = mus.view(seq_len, bs, GAUSSIANS, ROW)
        sigmas = torch.exp(sigmas.view(seq_len, bs, GAUSSIANS, ROW).clamp(-6, 4))
        return mus, sigmas, pi.view(seq_len, bs, GAUSSIANS)


def gmm_loss(target, mus, sigmas, logpi):
    """world-models' ``gmm_loss``: - log sum_k pi_k N(target | mu_k, sigma_k), averaged."""
    normal = torch.distributions.Normal(mus, sigmas)
    log_probs = normal.log_prob(target.unsqueeze(-2)).sum(-1) + logpi
    return -torch.logsumexp(log_probs, dim=-1).mean()


def as_rows(x):
    return x.view(-1, ROW, ROW).permute(1, 0, 2)      # (8 rows, batch, 8 pixels)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x = x + 0.02 * torch.randn_like(x)                # a density, not a point mass on 0
    model = MixtureRNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            rows = as_rows(xb)
            optimizer.zero_grad()
            mus, sigmas, pi = model(rows[:-1])
            # BUG (fixed=False): dim=-2 is the batch axis of (seq_len, batch, K)
            logpi = torch.log_softmax(pi, dim=-1 if fixed else -2)
            loss = gmm_loss(rows[1:], mus, sigmas, logpi)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        rows = as_rows(x[-HELD_OUT:])
        mus, sigmas, pi = model(rows[:-1])
        mon.nll = float(gmm_loss(rows[1:], mus, sigmas, torch.log_softmax(pi, dim=-1)))
    return mon
