"""A bagged ensemble written by hand: five MLPs, each meant to train on its own bootstrap
sample of the training set, but every sample is drawn from a generator seeded with the
same fixed random_state inside the loop over members, so all five get the SAME resampled
rows (about 63% of the distinct training digits, some repeated). The rows the draw left
out are never seen by any member, and the members only differ by their initialisation,
so the "ensemble" is barely more than one model trained on two thirds of the data.

Reported: "BUG: Bootstrap ensemble fitting uses same training set per ensemble model" -
https://github.com/ppdebreuck/modnet/issues/231 ("the same bootstrapped sample is drawn
from the training data ... because the random_state is always the same"). Here 300
training digits, five 64 -> 64 -> 10 MLPs in an nn.ModuleList trained together by one
Adam (each step every member gets a batch of 32 from its own bootstrap rows and the
members' losses are summed), 300 steps; the prediction averages the members' softmax.
Fix: draw member k's bootstrap from its own seed (seed + k), so the samples differ.

Measured (held-out accuracy of the averaged ensemble on the held-out digits): seed 0:
0.892 with the bug, 0.932 fixed; seeds + 1000: 0.870 vs 0.914.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._hand_ensembles301 import digits, ensemble_scores

TITLE = "BUG: Bootstrap ensemble fitting uses same training set per ensemble model"
LINK = "https://github.com/ppdebreuck/modnet/issues/231"
EXPECTED = ("BATCHES_DUPLICATED_ACROSS_WORKERS",)
STEPS = 300
MEMBERS = 5
RANDOM_STATE = 0


def bootstrap(n, member, fixed):
    seed = RANDOM_STATE + member if fixed else RANDOM_STATE   # BUG: one seed for all
    return torch.from_numpy(np.random.default_rng(seed).integers(0, n, n))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits(train_rows=300)
    members = nn.ModuleList([mlp() for _ in range(MEMBERS)])
    rows = [bootstrap(len(x), k, fixed) for k in range(MEMBERS)]
    optimizer = torch.optim.Adam(members.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1)
    with nd.watch(members, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = 0.0
            for member, own in zip(members, rows):
                pick = own[torch.randint(0, len(own), (32,), generator=g)]
                loss = loss + loss_fn(member(x[pick]), y[pick])
            loss = loss / MEMBERS
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy, mon.held_out_nll = ensemble_scores(members, xh, yh)
    return mon
