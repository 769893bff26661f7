"""Contrastive divergence (CD-k) whose negative chains always start from Gaussian noise
instead of from the batch's data. CD-k runs k Langevin steps FROM the data points, so the
negatives are the data nudged towards the model's own distribution and the update
E(data) - E(negatives) shapes the energy where the data and the model disagree. Started
from N(0, I), k short steps never carry the chains to the data, so the negatives stay
where the noise put them and the energy only learns to tell the data from that noise:
the regions neither the data nor the noise visit keep whatever energy they drift to.
Nothing errors and the loss looks like any contrastive loss; the energy fits the data
worse and its samples land off the data.

Reported: "[PR] resolve CD bug #60 - tests for schedulers and hmc" -
https://github.com/soran-ghaderi/torchebm/pull/61 (torchebm's maintainer found that the
library's ContrastiveDivergence loss "would always start from noise" instead of from the
data for its chains - CD bug #60 - and fixed the chains' initialisation). Here: an MLP
energy on a 2-D ring of eight Gaussians of radius 2 (benchmarks/real_bugs/_energy_models.py),
10 Langevin steps of 0.01 per negative, a 0.1 squared-energy penalty, Adam. Fix: start the
chains at the batch.

Measured (400 steps, batch 128, 1,024 held-out points; held-out negative log-likelihood
with the energy normalised on a grid over [-4, 4]^2, and the mean distance to the nearest
mode of 512 points after 200 Langevin steps from uniform noise, 0.32 for the data
themselves): seed 0, NLL 3.34 nats for the bug against 2.62 for the fixed twin, samples
1.17 from a mode against 0.52; seeds shifted by 1000, NLL 3.09 against 2.57, samples 0.80
against 0.50. With chains started uniformly over the whole grid instead of from N(0, I),
the bug did little harm (NLL 2.69 against 2.62): noise that covers the box is a usable
contrast in 2-D; the report's noise is the standard normal.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._energy_models import (Energy, batches, data, held_out_nll,
                                                 langevin, mode_distance)

TITLE = "[PR] resolve CD bug #60 - tests for schedulers and hmc"
LINK = "https://github.com/soran-ghaderi/torchebm/pull/61"
EXPECTED = ("CD_CHAINS_NOT_FROM_DATA",)
STEPS = 400
K = 10
STEP_SIZE = 0.01
PENALTY = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = data()
    model = Energy()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in batches(train, steps):
            if fixed:
                start = x                           # CD-k: the chains start at the data
            else:
                start = torch.randn_like(x)         # BUG: every chain starts from noise
            negatives = langevin(model, start, K, STEP_SIZE)
            positive, negative = model(x), model(negatives)
            loss = positive.mean() - negative.mean() + PENALTY * (
                positive.pow(2).mean() + negative.pow(2).mean())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_nll = held_out_nll(model, held_out)
    start = torch.rand(512, 2) * 6 - 3
    mon.sample_mode_distance = mode_distance(langevin(model, start, 200, STEP_SIZE))
    return mon
