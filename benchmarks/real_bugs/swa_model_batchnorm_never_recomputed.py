"""Stochastic weight averaging evaluates the averaged model without recomputing its
batch-norm statistics: ``AveragedModel`` averages the weights only, and its batch norms
hold running statistics that were not measured on the averaged weights (the copy's, or,
in PyTorch today, the last iterate's, copied at every update). The averaged weights
produce activations whose statistics do not match those buffers, so the model that is
validated (and kept) normalises with the wrong numbers and scores below what it should.

Reported: "Update SWA batch norm statistics" - https://github.com/mosaicml/composer/issues/624
(when the SWA window ends after the last epoch has begun, the averaged model's batch-norm
statistics are never updated, "which leads to very poor performance"; the fix is one more
pass over the training data before the final validation). Here a digits MLP with a
BatchNorm1d, SGD with momentum, ``torch.optim.swa_utils.AveragedModel`` built before
training (as PyTorch's SWA recipe does), averaged after every epoch from the fifth on
under ``SWALR``, and the averaged model validated after every epoch from then on.
Fix: ``torch.optim.swa_utils.update_bn`` over the training batches before validating the
averaged model.

Measured (14 epochs of 22 steps, 359 held-out digits; SGD at 0.2 kept constant by SWALR,
the regime SWA averages): the averaged model's final validation loss 0.096 (accuracy
0.978) with the bug against 0.076 (0.986) for the fixed twin; the live network 0.076.
PyTorch's AveragedModel now copies the model's buffers at every update (pytorch#84053), so
the averaged weights run with the statistics of the last iterate, not of themselves: the
harm is the mismatch of the two, smaller than with the untrained statistics of the report.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Update SWA batch norm statistics"
LINK = "https://github.com/mosaicml/composer/issues/624"
EXPECTED = ("NORM_STATISTICS_NEVER_ESTIMATED",)
EPOCH = 22                 # batches of 64 in the training split
STEPS = 14 * EPOCH
SWA_START = 4 * EPOCH      # averaging starts after four epochs


def split():
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))
    swa_model = AveragedModel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    swa_scheduler = SWALR(optimizer, swa_lr=0.2, anneal_epochs=1)
    history = []
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 and done >= SWA_START:
                swa_model.update_parameters(model)
                swa_scheduler.step()
                if fixed:
                    update_bn(batches(x_train, y_train, EPOCH, seed=done), swa_model)
                swa_model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(swa_model(x_val), y_val)
                history.append(val_loss.item())
            mon.step(loss, val_loss=val_loss)
    mon.val_history = history
    mon.swa_accuracy = accuracy(swa_model, x_val, y_val)
    mon.model_loss = F.cross_entropy(model.eval()(x_val), y_val).item()
    return mon


def accuracy(network, x, y):
    network.eval()
    with torch.no_grad():
        return (network(x).argmax(1) == y).float().mean().item()
