"""A Bayesian network whose layers keep TWO sets of variational parameters: the (mu, rho) the
forward pass samples its weights from, and a second pair made at construction that the KL
term is computed on. The prior then constrains parameters no prediction reads, while the
weights that make the predictions get no KL at all: their spread never learns (it stays at
its initial 0.018) and the network is a deterministic net with a Bayesian-looking loss.
The loss falls, accuracy is fine, nothing errors - what is lost is the uncertainty a BNN
is trained for: on inputs unlike the data it stays confident.

Reported: "Possible bug in BBBlayers" -
https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/7 (the reporter found that
``BBBConv2d`` and ``BBBLinearFactorial`` declare ``conv_qw``/``fc_qw`` for the KL but
``probforward`` samples from ``qw_mean``/``log_alpha``, "thus it looks as if you are
actually not imposing the prior on the model weights (which are used for the tasks) but on
a different set which is never used"; the layers were rewritten so the KL reads the
forward's parameters). Here a 64-100-100-10 mean-field Gaussian MLP (benchmarks/real_bugs/
_bayes.py) with a copy of every (mu, rho) pair for the KL, 500 training digits, mean
cross-entropy + KL / 500 to N(0, 1), batches of 50, Adam 3e-3, 1,500 steps. Fix: the KL of
the pairs the forward pass samples from (no copies).

Measured (1,297 held-out digits, 20 Monte Carlo passes; out-of-distribution: the same
digits with their pixels scrambled by one fixed permutation, AUROC of the predictive
entropy telling them from real digits): seed 0, OOD AUROC 0.89 for the bug against 0.99
for the fixed twin; seeds shifted by 1000, 0.79 against 0.94. In distribution the bug run
is the better classifier (accuracy 0.961 and 0.955 against 0.934 and 0.927, NLL 0.18 and
0.21 against 0.34 and 0.35): the harm is the uncertainty, not the accuracy.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bayes import NoisyBayesMLP, gaussian_kl, mean_posterior_sigma
from benchmarks.real_bugs._bayesian_nets import RHO_INIT, batches, predictive, scores, split

TITLE = "Possible bug in BBBlayers"
LINK = "https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/7"
EXPECTED = ("KL_TERM_ON_PARAMETERS_THE_FORWARD_NEVER_READS",)
STEPS = 1500


class LayerWithKLCopies(NoisyBayesMLP):
    """The Bayesian MLP plus, per layer, a second (mu, rho) pair made at construction - the
    report's ``fc_qw``/``conv_qw`` - that the KL reads and the forward pass never does."""

    def __init__(self, copies=True):
        super().__init__()
        if not copies:
            return
        self.kl_mu = nn.ParameterList()
        self.kl_rho = nn.ParameterList()
        for layer in self.layers():
            for mu in (layer.weight_mu, layer.bias_mu):
                self.kl_mu.append(nn.Parameter(mu.detach().clone()))
                self.kl_rho.append(nn.Parameter(torch.full_like(mu, RHO_INIT)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = LayerWithKLCopies(copies=not fixed)    # the fix: no copies, the KL on the used
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            logits = model(xb)
            if fixed:       # the KL of the posterior the forward pass samples from
                pairs = [(mu, rho) for layer in model.layers() for mu, rho, _ in layer.pairs()]
            else:           # BUG: the KL of the copies, which no prediction uses
                pairs = list(zip(model.kl_mu, model.kl_rho))
            kl = sum(gaussian_kl(mu, F.softplus(rho)) for mu, rho in pairs)
            loss = F.cross_entropy(logits, yb) + kl / len(x_train)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.mean_posterior_sigma = mean_posterior_sigma(model.layers())
    scores(mon, predictive(model, x_held), y_held)
    # the same held-out digits with their pixels scrambled by one fixed permutation: no digit
    scrambled = x_held[:, torch.from_numpy(np.random.default_rng(7).permutation(64))]
    mon.held_out_ood_auroc = ood_auroc(entropy(predictive(model, x_held)),
                                       entropy(predictive(model, scrambled)))
    return mon


def entropy(probs):
    return -(probs * torch.log(probs + 1e-12)).sum(1)


def ood_auroc(inside, outside):
    """The chance that a scrambled input's predictive entropy exceeds a real digit's."""
    greater = (outside[:, None] > inside[None, :]).float().mean()
    return round(float(greater), 4)
