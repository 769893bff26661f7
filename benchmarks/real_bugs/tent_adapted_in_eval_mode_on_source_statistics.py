"""Test-time adaptation by entropy minimisation (Tent) run with the model in ``eval()``.
Tent adapts a source-trained network to a shifted test domain by normalising each test
batch with its OWN batch-norm statistics and training only the batch norms' scales and
shifts to make the predictions confident. In ``eval()`` the batch norms keep normalising
with the SOURCE running statistics, so the target's shift passes through every layer
untouched, and the entropy loss is minimised anyway: the affine parameters learn to make
the (mostly wrong) predictions confident. The loss falls as it should, nothing errors, and
the adapted model is no better - here worse - than the unadapted one.

Reported: "The code in the tent part is incorrect. The affine parameters of the bn layer
cannot be updated in model. eval() mode." - https://github.com/vita-epfl/ttt-plus-plus/issues/8
(the reporter: Tent has to update the model under ``model.train()`` and test under
``model.eval()``; the same thread points to the ``model.train()`` call the repository's
``forward_and_adapt`` makes for this, the fix. The CoTTA maintainer gives the same advice
for BN adaptation in https://github.com/qinenergy/cotta/issues/17: change ``model.eval()``
to ``model.train()`` so batch norm uses the target batch statistics instead of the
averaged source statistics.) Here a batch-normalised MLP (benchmarks/real_bugs/_da.py) is
trained on the source half of the 8x8 digits (300 Adam steps, unwatched), then adapted on
the target half (contrast lowered and lifted, x * 0.5 + 0.4, unlabelled): only the batch
norms' weights and biases, Adam 1e-3, batches of 64. Fix: ``model.train()`` for the
adaptation (batch statistics), predictions made the same way.

Measured (held-out target accuracy after 200 adaptation steps; the source model before
adaptation: 0.36 with its source statistics): seed 0, 0.24 for the bug against 0.98 for the
fixed twin; seeds shifted by 1000, 0.12 against 0.96 (unadapted 0.29).
At seed 0 watch also says FROZEN_PARAMETERS on both runs (a false alarm on the twin): the
first layer, frozen by Tent's design, was trained for 300 source steps (it moved 1.35 times
its initial norm, correlation 0.60 with its initial values) and ends with a spread of 0.122,
which the rule takes for a fresh xavier-normal initialisation (0.125 for 64 x 64).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._da import BatchNormNet, accuracy, domains, draw, pretrain

TITLE = ("The code in the tent part is incorrect. The affine parameters of the bn layer "
         "cannot be updated in model. eval() mode.")
LINK = "https://github.com/vita-epfl/ttt-plus-plus/issues/8"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 200


def entropy(logits):
    """Mean Shannon entropy of the softmax predictions."""
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    source, _, target, target_test = domains(0)
    model = pretrain(BatchNormNet(), source, seed=0)
    model.requires_grad_(False)
    affine = []
    for module in model.modules():
        if isinstance(module, nn.BatchNorm1d):
            module.requires_grad_(True)
            affine += [module.weight, module.bias]
    optimizer = torch.optim.Adam(affine, lr=1e-3)
    if fixed:
        model.train()       # batch norm normalises each test batch with its own statistics
    else:
        model.eval()        # BUG: the source running statistics normalise the target
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x, _ = draw(rng, target)
            loss = entropy(model(x))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    # each script predicts the way it adapts: with batch statistics only when fixed
    mon.held_out_target_accuracy = accuracy(model, target_test, batch_statistics=fixed)
    return mon
