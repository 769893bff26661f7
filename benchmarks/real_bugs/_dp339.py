"""Pieces the batch-339 cases share: DP-SGD written by hand on the 8x8 digits, as a first
private-training script does it - per-sample gradients from torch.func (vmap over grad of a
one-sample loss, the PyTorch per-sample-gradients recipe), each sample's whole gradient
clipped to norm C, Poisson-sampled batches (every training row taken with probability
q = B / N at every step). The noise and the averaging are left to each case: that is where
its bug lives."""
import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

from benchmarks.real_bugs._common import classification

HELD_OUT = 497            # the last rows of the digits, never trained on
CLIP = 1.0                # C: the bound on each sample's gradient norm
NOISE_MULTIPLIER = 1.0    # sigma: the noise's standard deviation is sigma * C on the sum
EXPECTED_BATCH = 64       # B = q * N, the batch the Poisson sampling draws on average


def digits_split():
    """(x_train, y_train, x_held_out, y_held_out) as float32 (N, 64) / int64 tensors."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def poisson_batches(n, steps, expected_batch=EXPECTED_BATCH, seed=0):
    """``steps`` index tensors, each row in with probability expected_batch / n on its own
    (the sampling the privacy accounting assumes: batch sizes vary around B)."""
    rng = np.random.default_rng(seed)
    rate = expected_batch / n
    for _ in range(steps):
        yield torch.from_numpy(np.flatnonzero(rng.random(n) < rate))


def per_sample_gradients(model):
    """A function (x, y) -> {name: (batch, *shape)} of each sample's cross-entropy
    gradient, computed on the model's current weights."""
    def one_sample_loss(params, xi, yi):
        out = functional_call(model, params, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))

    batched = vmap(grad(one_sample_loss), in_dims=(None, 0, 0))

    def compute(xb, yb):
        params = {k: v.detach() for k, v in model.named_parameters()}
        return batched(params, xb, yb)
    return compute


def clip_per_sample(grads, clip=CLIP):
    """Each sample's gradient, over all the parameters together, scaled to norm <= clip;
    returned as {name: (batch, *shape)}."""
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads.values()], 1).norm(dim=1)
    factor = (clip / (norms + 1e-6)).clamp(max=1.0)
    return {k: g * factor.view(-1, *([1] * (g.dim() - 1))) for k, g in grads.items()}


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def per_sample_gradients_of_batch(model, xb, yb):
    """(mean loss, {name: (batch, *shape)}) from ONE forward of the whole batch: the
    per-sample losses' gradients taken together with autograd.grad(is_grads_batched=True)
    against the identity (row i of it picks sample i's loss). Right whenever no sample's
    output reads another's (no batch norm)."""
    names, params = zip(*model.named_parameters())
    losses = nn.functional.cross_entropy(model(xb), yb, reduction="none")
    grads = torch.autograd.grad(losses, params, grad_outputs=torch.eye(len(xb)),
                                is_grads_batched=True)
    return losses.mean(), dict(zip(names, grads))
