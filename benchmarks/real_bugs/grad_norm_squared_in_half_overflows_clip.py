"""Gradient-norm clipping computed in the gradients' own dtype in an fp16 model trained
with a static loss scale: the scaled gradients are fine in fp16, but the clipping squares
each tensor's norm and sums the squares in fp16, and any total above 65504 (a scaled
norm above 256) is inf. The clip coefficient ``max_norm / inf`` is then 0 and every
gradient is multiplied by it: the step moves nothing (momentum aside), no NaN appears, the
loss printed is finite - the run just stops learning whenever the scaled norm passes 256.

Reported: "Resolve issue where grad norms because inf with OSS / fp16" -
https://github.com/facebookresearch/fairscale/pull/263 (fairscale's OSS clip_grad_norm
raised the per-device norms to the power 2 and reduced them in fp16; for large models
with a gradient norm around 5000 per device the square overflowed and the clip norm
became inf; the fix casts to fp32 before squaring and reducing, and returns the norm in
fp32).

Here a digits MLP (64-64-10) cast with ``.half()`` and trained in fp16 on CPU, the loss
multiplied by a static scale of 512 before ``backward()`` and the gradients divided by it
in the clipping coefficient (max norm 1.0), SGD with momentum 0.9 at 0.05, batches of 64,
1400 digits to train, 397 held out. Fix: the norms squared and summed in float32.

Measured (held-out accuracy): seed 0: 0.53 with the bug against 0.97 for the fixed twin;
seeds shifted by 1000: 0.78 against 0.97.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._amp151 import digits_split
from benchmarks.real_bugs._common import batches, mlp

TITLE = "Resolve issue where grad norms because inf with OSS / fp16"
LINK = "https://github.com/facebookresearch/fairscale/pull/263"
EXPECTED = ("GRADIENT_NORM_OVERFLOW", "GRADIENTS_CLIPPED_AWAY")
STEPS = 300
LOSS_SCALE, MAX_NORM = 512.0, 1.0


def clip_scaled_(parameters, fixed):
    """Unscale and clip in one multiply: coefficient min(1, max_norm / true norm) / scale."""
    grads = [p.grad for p in parameters if p.grad is not None]
    dtype = torch.float32 if fixed else grads[0].dtype      # BUG: squares summed in fp16
    squares = torch.stack([g.to(dtype).norm() ** 2 for g in grads]).sum()
    norm = squares.sqrt() / LOSS_SCALE
    coefficient = torch.clamp(MAX_NORM / (norm + 1e-6), max=1.0) / LOSS_SCALE
    for g in grads:
        g.mul_(coefficient.to(g.dtype))
    return norm


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = mlp().half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x.half(), y, steps):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb).float(), yb)
            (loss * LOSS_SCALE).backward()
            clip_scaled_(list(model.parameters()), fixed)
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = (model(x_test.half()).float().argmax(-1) == y_test
                                 ).float().mean().item()
    return mon
