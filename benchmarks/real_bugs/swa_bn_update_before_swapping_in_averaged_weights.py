"""Stochastic weight averaging whose batch-norm statistics are recomputed BEFORE the averaged
weights are swapped into the network: ``bn_update`` then measures the activations of the last
SGD iterate, and ``swap_swa_sgd`` puts the averaged weights in place without touching the
buffers. The model that is evaluated and kept runs the averaged weights with the running
statistics of other weights.

Reported: "The position of bn_update?" - https://github.com/pytorch/contrib/issues/41 (the
asker does not know whether ``opt.bn_update(train_loader, model)`` goes before or after
``opt.swap_swa_sgd()``; only the order swap-then-update measures the weights that are
evaluated, as torchcontrib's and PyTorch's SWA docs do). Here torchcontrib's SWA by hand: the
digits (80/20 split), a two-hidden-layer MLP with BatchNorm1d, SGD with momentum at a high
constant rate (0.4, the SWA regime), an equal average of the weights (parameters only, as
``torchcontrib.optim.SWA`` keeps) taken at the end of every epoch from the fifth on, and at the
end of training ``bn_update`` over one epoch of training batches, then the swap.
Fix: swap the averaged weights in first, then recompute the statistics.

Measured (held-out digits, the swapped model after training): cross-entropy 0.087 (accuracy
0.975) with the bug against 0.047 (0.983) for the fixed twin; seeds + 1000: 0.066 (0.978) vs
0.048 (0.986).
"""
import torch
import torch.nn.functional as F
from torch.optim.swa_utils import update_bn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._swa import bn_mlp, evaluate, split

TITLE = "The position of bn_update?"
LINK = "https://github.com/pytorch/contrib/issues/41"
EXPECTED = ("NORM_STATISTICS_NEVER_ESTIMATED",)
EPOCH = 22                 # batches of 64 in the training split
STEPS = 14 * EPOCH
SWA_START = 4 * EPOCH


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    model = bn_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.4, momentum=0.9)
    params = list(model.parameters())
    average = [torch.zeros_like(p) for p in params]
    averaged = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if done % EPOCH == 0 and done >= SWA_START:
                averaged += 1
                with torch.no_grad():
                    for a, p in zip(average, params):
                        a.add_((p - a) / averaged)
            val_loss = None
            if done == steps:
                loader = batches(x_train, y_train, EPOCH, seed=done)
                if not fixed:
                    update_bn(loader, model)         # BUG: statistics of the SGD weights
                with torch.no_grad():                # swap_swa_sgd: parameters only
                    for a, p in zip(average, params):
                        p.copy_(a)
                if fixed:
                    update_bn(loader, model)
                val_loss, mon.swa_accuracy = evaluate(model, x_val, y_val)
                mon.swa_loss = val_loss
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
