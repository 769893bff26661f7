"""Network slimming with one global threshold over every batch-norm scale: all the scales
of one layer fall below it, every channel of that layer is masked, no signal passes
through it, and the fine-tuned network (no skip connection) predicts one class.

Reported: "A question about the pruning algorithm" -
https://github.com/Eric-mingjie/rethinking-network-pruning/issues/18 (the threshold is
chosen over the scaling factors of all layers, so "all the scaling factors of certain
layer are below the threshold and hence all channels in that layer is masked ... blocking
the data flow", giving "almost 0% accuracy"; the maintainer: a ResNet then sees the layer
as an identity, a network without skip connections "is not useful"; the reporter asks
whether to prune less). Here a batch-normalised MLP (128 then 32 channels) is trained
with the L1 penalty on its scales (sparsity training), the 80% smallest scales over both
layers are masked with ``torch.nn.utils.prune.custom_from_mask`` (scale and shift), and
the pruned network is fine-tuned under watch.

Measured (seed 0): the wide layer's scales all lie below the narrow layer's (0.74-0.92
against 1.02-1.60), so the global 80% threshold masks all 128 channels of the first layer;
fine-tuning then stays at chance (last 20 steps' mean loss 2.320, ln 10 = 2.303). Fixed (a
pruning ratio of 50%, no layer emptied), fine-tuning ends at a mean loss of 0.008.
Fix: prune less (or keep a few channels in every layer).
"""
import torch
from torch import nn
from torch.nn.utils import prune

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "A question about the pruning algorithm"
LINK = "https://github.com/Eric-mingjie/rethinking-network-pruning/issues/18"
EXPECTED = ("LAYER_PRUNED_ENTIRELY",)
STEPS = 100
SPARSITY_STEPS = 200
SCALE_PENALTY = 1e-3       # the L1 strength on the scales during sparsity training


def slimmable():
    return nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(),
                         nn.Linear(128, 32), nn.BatchNorm1d(32), nn.ReLU(),
                         nn.Linear(32, 10))


def sparsity_training(model, x, y, seed):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    norms = [m for m in model if isinstance(m, nn.BatchNorm1d)]
    for xb, yb in batches(x, y, SPARSITY_STEPS, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        for norm in norms:    # the subgradient of the L1 penalty on the scales
            norm.weight.grad.add_(SCALE_PENALTY * torch.sign(norm.weight.detach()))
        optimizer.step()
    return norms


def slim(norms, percent):
    """Mask every channel whose |scale| is not above the global ``percent`` quantile."""
    scales = torch.cat([n.weight.detach().abs() for n in norms])
    threshold = scales.sort().values[int(len(scales) * percent)]
    for norm in norms:
        keep = (norm.weight.detach().abs() > threshold).float()
        prune.custom_from_mask(norm, "weight", keep)
        prune.custom_from_mask(norm, "bias", keep)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = slimmable()
    norms = sparsity_training(model, x, y, seed=1)
    slim(norms, percent=0.5 if fixed else 0.8)   # BUG at 0.8: the first layer's 128 all go
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
