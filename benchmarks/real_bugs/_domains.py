"""The domain-adaptation set-up several real-bug cases share (DANN-style training, batch 107):
a labelled source domain and an unlabelled target domain cut from the 8x8 digits, a gradient
reversal layer, and the training loop that adds the domain classifier's loss to the source
cross-entropy. Each case keeps its own model and its bug; this file holds what is the same."""
import numpy as np
import torch
from torch import nn

import nndebug as nd

BATCH = 64             # source samples per step, and as many target samples beside them


class ReverseGradient(torch.autograd.Function):
    """Identity forward; backward multiplies the gradient by -weight."""

    @staticmethod
    def forward(ctx, x, weight):
        ctx.weight = weight
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.weight * grad_output, None


def split_domains(x, y, seed):
    """(source, target), each (inputs, labels): the samples halved at random; the target
    half's contrast lowered (x * 0.6 + 0.3), the shift the adaptation has to bridge."""
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    half = len(x) // 2
    return ((x[order[:half]], y[order[:half]]),
            (x[order[half:]] * 0.6 + 0.3, y[order[half:]]))


def train_dann(model, optimizer, source, target_inputs, steps, watch, transform=None):
    """Watch ``steps`` steps of DANN training and return the monitor. Each step draws BATCH
    source and BATCH target samples (their own generator, seed 1), passes them through
    ``transform(images, rng)`` when one is given, and minimises the source cross-entropy
    plus the domain classifier's BCE (source 0, target 1); ``model`` returns (class logits,
    domain logits)."""
    xs, ys = source
    rng = np.random.default_rng(1)
    is_target = torch.cat([torch.zeros(BATCH), torch.ones(BATCH)])
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            i = torch.from_numpy(rng.integers(0, len(xs), BATCH))
            j = torch.from_numpy(rng.integers(0, len(target_inputs), BATCH))
            images = torch.cat([xs[i], target_inputs[j]])
            if transform is not None:
                images = transform(images, rng)
            logits, domain_logits = model(images)
            loss = (nn.functional.cross_entropy(logits[:BATCH], ys[i])
                    + nn.functional.binary_cross_entropy_with_logits(domain_logits,
                                                                     is_target))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def accuracies_on(model, source, target):
    """(source accuracy, target accuracy) of a model returning (class logits, domain
    logits)."""
    with torch.no_grad():
        return tuple((model(x)[0].argmax(1) == y).float().mean().item()
                     for x, y in (source, target))
