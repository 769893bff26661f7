"""A Bayesian LSTM whose loss adds the layers' whole KL divergence to a likelihood averaged
over the batch: the KL belongs to the whole training set, so next to a per-example mean it
must be divided by the number of training examples. Unscaled, the prior outweighs the data
500 times over; the posterior stays at the prior, the network never leaves chance, and the
loss still falls (the KL shrinks) without any error.

Reported: "`bug` No convergence using bayesian LSTMCell" -
https://github.com/google/edward2/issues/474 (a Bayesian LSTM built from
``LSTMCellReparameterization`` whose ELBO did not converge where the plain LSTM did; the
reporter found that dividing the KL by the number of training samples, as the TFP tutorial
does, is what makes it train - without it the run behaves like the non-converging
experiment - and the example notebook the reporter then contributed (edward2 pull request
524) states that scaling the Bayesian layers' loss is necessary to reach convergence).
Here an LSTM over the 8 rows of each digit (hidden 32, every gate weight and the read-out
mean-field Gaussian, reparameterised; benchmarks/real_bugs/_bayes.py), 500 training digits,
mean cross-entropy + KL to N(0, 1), batches of 50, Adam 3e-3, 1,500 steps. Fix: KL / 500.

Measured (1,297 held-out digits, 20 Monte Carlo passes): seed 0, held-out accuracy 0.110
for the bug against 0.900 for the fixed twin (NLL 2.32 against 0.60); seeds shifted by
1000, 0.118 against 0.885 (NLL 2.31 against 0.57).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bayes import NoisyBayesLinear, gaussian_kl, mean_posterior_sigma
from benchmarks.real_bugs._bayesian_nets import batches, predictive, scores, split

TITLE = "`bug` No convergence using bayesian LSTMCell"
LINK = "https://github.com/google/edward2/issues/474"
EXPECTED = ("ELBO_KL_OVERWEIGHTED",)
STEPS = 1500
HIDDEN = 32


class BayesLSTM(nn.Module):
    """An LSTM over the digit's 8 rows of 8 pixels, every weight Bayesian (mean-field
    Gaussian, reparameterised), and a Bayesian read-out of the last hidden state."""

    def __init__(self):
        super().__init__()
        self.gates = NoisyBayesLinear(8 + HIDDEN, 4 * HIDDEN)
        self.out = NoisyBayesLinear(HIDDEN, 10)

    def forward(self, x):
        rows = x.view(-1, 8, 8)
        h = rows.new_zeros(len(rows), HIDDEN)
        c = torch.zeros_like(h)
        for t in range(8):
            i, f, g, o = self.gates(torch.cat([rows[:, t], h], 1)).chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return self.out(h)

    def layers(self):
        return (self.gates, self.out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = BayesLSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            logits = model(xb)
            kl = sum(gaussian_kl(mu, F.softplus(rho)) for layer in model.layers()
                     for mu, rho, _ in layer.pairs())
            # BUG: the whole KL next to a per-example mean likelihood
            loss = F.cross_entropy(logits, yb) + (kl / len(x_train) if fixed else kl)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.mean_posterior_sigma = mean_posterior_sigma(model.layers())
    return scores(mon, predictive(model, x_held), y_held)
