"""ProdLDA's decoder ends in a BatchNorm1d over the vocabulary built with affine=False, so
every word's logit is centred to mean 0 over the batch and nothing adds it back: the
decoder (a bias-free Linear, as in the paper) has no per-word offset left, and a word that
is common in every document (a background word) cannot be given a higher probability than
a rare one. The topics must spend themselves on the background, and the reconstruction of
held-out word counts suffers. The original ProdLDA's batch norm has scale=False but keeps
its shift (beta): a learned per-word bias.

Reported: "ProdLDA tutorial improvements" -
https://github.com/pyro-ppl/pyro/pull/2794 ("Correct the batch norm terms to align with
the original implementation. In particular, the original does not use `affine=False`, but
rather `scale=False`: there is still a bias term. This improves the best NPMI from 0.276
to 0.355."). Here the tutorial's ProdLDA (softplus encoder, batch-normed mean and log
variance, standard normal prior on the logistic-normal topic proportions, dropout; Adam at
3e-3 for a short run of 250 steps) on a synthetic document-term matrix: 6 topics over 200
words plus a Zipf background. Fix: BatchNorm1d(affine=True) with its weight frozen at 1
and its bias trained, as in the PR.

No finding code names a batch norm without its shift right before the output softmax; the
nearest is OUTPUT_NORMALISED_BEFORE_SQUASH (a normalisation layer feeding the final squash).

Measured (held-out reconstruction perplexity of 400 unseen documents from the posterior
mean, lower is better): 166.8 with the bug, 136.5 fixed; seeds + 1000: 166.5 vs 137.6.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._topic359 import TOPICS, VOCAB, corpus, perplexity

TITLE = "ProdLDA tutorial improvements"
LINK = "https://github.com/pyro-ppl/pyro/pull/2794"
EXPECTED = ("OUTPUT_NORMALISED_BEFORE_SQUASH",)
STEPS = 250
LR = 3e-3
HIDDEN = 64


class ProdLDA(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fc1 = nn.Linear(VOCAB, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.fcmu = nn.Linear(HIDDEN, TOPICS)
        self.fclv = nn.Linear(HIDDEN, TOPICS)
        self.bnmu = nn.BatchNorm1d(TOPICS, affine=False)
        self.bnlv = nn.BatchNorm1d(TOPICS, affine=False)
        self.drop = nn.Dropout(0.2)
        self.beta = nn.Linear(TOPICS, VOCAB, bias=False)
        if fixed:
            # the original's scale=False: a frozen unit scale and a learned per-word shift
            self.bn = nn.BatchNorm1d(VOCAB, affine=True)
            self.bn.weight.requires_grad_(False)
        else:
            self.bn = nn.BatchNorm1d(VOCAB, affine=False)   # BUG: no shift, no word bias
        self.drop_theta = nn.Dropout(0.2)

    def encode(self, x):
        h = F.softplus(self.fc2(F.softplus(self.fc1(x))))
        h = self.drop(h)
        return self.bnmu(self.fcmu(h)), self.bnlv(self.fclv(h))

    def decode(self, theta):
        return F.log_softmax(self.bn(self.beta(self.drop_theta(theta))), dim=1)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decode(F.softmax(z, dim=1)), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = corpus()
    model = ProdLDA(fixed)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=64, seed=0):
            x = train[index]
            optimizer.zero_grad()
            log_probs, mu, logvar = model(x)
            reconstruction = -(x * log_probs).sum(1)
            kl = 0.5 * (mu.pow(2) + logvar.exp() - 1 - logvar).sum(1)
            loss = (reconstruction + kl).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mu, _ = model.encode(test)
        mon.held_out_perplexity = perplexity(model.decode(F.softmax(mu, dim=1)), test)
    return mon
