"""Magnitude pruning in the middle of training with the pruned weights' gradients masked,
but the optimizer's momentum buffers kept: the momentum gathered before pruning keeps
moving the pruned weights, which are no longer zero after the very next step.

Reported: "Momentum will change the pruned weights" -
https://github.com/ruihangdu/PyTorch-Deep-Compression/issues/2 (the pruned weights should
stay zero as in Deep Compression, but "due to the functionality of momentum" the optimizer
changes them, although their gradients are masked). Here the digits MLP trains densely
with SGD and momentum 0.9, then 80% of each weight matrix (smallest magnitudes) is zeroed
and a gradient hook masks the pruned entries, as the report's code does.

Measured (seed 0, 150 steps, pruned at step 60): with the bug only 14.6% and 5.9% of the
two matrices' pruned entries are still zero at the end (the network is dense again, pruned
entries up to |w| = 0.07), and masking them again to ship the sparse model moves training
accuracy from 0.945 to 0.930; fixed, 100% of them stay zero and the accuracy is 0.945 with
the mask in place.
Fix: clear the momentum of the pruned entries when pruning (so a masked gradient leaves
them where they are).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Momentum will change the pruned weights"
LINK = "https://github.com/ruihangdu/PyTorch-Deep-Compression/issues/2"
EXPECTED = ("PRUNED_WEIGHTS_REGROW",)
STEPS = 150
PRUNE_AT = 60
SPARSITY = 0.8


def magnitude_masks(model):
    """Per weight matrix: 1 where the weight is among the largest (1 - SPARSITY)."""
    masks = {}
    for layer in (model[0], model[2]):
        w = layer.weight.detach()
        threshold = w.abs().flatten().kthvalue(int(SPARSITY * w.numel())).values
        masks[layer.weight] = (w.abs() > threshold).float()
    return masks


def prune(model, optimizer, fixed):
    masks = magnitude_masks(model)
    for weight, mask in masks.items():
        with torch.no_grad():
            weight.mul_(mask)
        weight.register_hook(lambda grad, mask=mask: grad * mask)   # gradient masked
        if fixed:   # the fix: the pruned entries' momentum cleared too
            optimizer.state[weight]["momentum_buffer"].mul_(mask)
        # BUG when not fixed: the momentum buffer still pushes the pruned entries
    return masks


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step == PRUNE_AT:
                mon.masks = prune(model, optimizer, fixed)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
