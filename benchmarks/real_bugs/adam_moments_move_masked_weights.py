"""Weights pruned by hand (set to zero, their gradients zeroed before every step) while
Adam trains: Adam's first and second moments, gathered before pruning, keep producing
updates for entries whose gradient is now zero, so the pruned connections grow back.

Reported: "How to prune weights in PyTorch" -
https://discuss.pytorch.org/t/how-to-prune-weights-in-pytorch/4636 (replicating Han et
al.'s prune-and-retrain, the zero-valued weights "still get gradients, making them
non-zero again"; the poster found the cause himself: Adam "accumulates gradients from
previous steps", so zeroing the gradients by hand has no effect on its momentum term;
an optimizer without a momentum term, RMSprop, solved it). Here the digits MLP trains
with Adam, 70% of each weight matrix is zeroed at step 60 and their gradients are zeroed
after every backward, as in the post.

Measured (seed 0, 150 steps): with the bug only 17.2% and 6.7% of the two matrices'
pruned entries are still zero at the end (up to |w| = 0.04); masked again for shipping,
training accuracy moves from 0.914 to 0.899. Fixed (RMSprop throughout), 100% stay zero
(accuracy 0.881 with the mask in place: RMSprop at its learning rate learns slower here).
Fix: an optimizer without a momentum term (the post's RMSprop).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "How to prune weights in PyTorch"
LINK = "https://discuss.pytorch.org/t/how-to-prune-weights-in-pytorch/4636"
EXPECTED = ("PRUNED_WEIGHTS_REGROW",)
STEPS = 150
PRUNE_AT = 60
SPARSITY = 0.7


def prune(model):
    """Zero the smallest SPARSITY of each weight matrix; the masks of what is kept."""
    masks = {}
    for layer in (model[0], model[2]):
        w = layer.weight
        threshold = w.detach().abs().flatten().kthvalue(int(SPARSITY * w.numel())).values
        mask = (w.detach().abs() > threshold).float()
        with torch.no_grad():
            w.mul_(mask)
        masks[w] = mask
    return masks


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    if fixed:   # the post's fix: an optimizer without a momentum term
        optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    masks = {}
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step == PRUNE_AT:
                masks = prune(model)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            for weight, mask in masks.items():
                weight.grad.mul_(mask)   # BUG when not fixed: Adam's moments still move them
            optimizer.step()
            mon.step(loss)
    mon.masks = masks
    return mon
