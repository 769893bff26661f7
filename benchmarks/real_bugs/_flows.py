"""What the normalizing-flow cases share (batch 109): a flow as a stack of invertible layers
whose log-determinants add up, and its loss, the negative log-likelihood of the data under a
standard normal base (change of variables: log p(x) = log N(f(x)) + log|det df/dx|). Each
case keeps its own layers and its bug."""
import math

import torch
from torch import nn


class FlowStack(nn.Module):
    """``self.layers`` applied in order, each returning (output, per-sample log|det J|); the
    forward gives (z, the summed log-determinant). Subclasses build ``self.layers``."""

    def forward(self, x):
        log_det = torch.zeros(len(x))
        for layer in self.layers:
            x, layer_log_det = layer(x)
            log_det = log_det + layer_log_det
        return x, log_det


def standard_normal_log_density(z):
    """log N(z; 0, I) of each row of ``z``."""
    return -0.5 * (z ** 2).sum(1) - 0.5 * z.shape[1] * math.log(2 * math.pi)


def negative_log_likelihood(flow, x):
    """The flow's mean negative log-likelihood of the rows of ``x``."""
    z, log_det = flow(x)
    return -(standard_normal_log_density(z) + log_det).mean()
