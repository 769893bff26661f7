"""A RealNVP on images whose batch-normalisation layers return the log-determinant of ONE
pixel: each channel is normalised with one mean and variance (and one learned scale) at
every one of its H x W positions, so the layer's Jacobian holds each channel's factor
H x W times, but the log-determinant is written as the per-channel sum
``sum(log_gamma - 0.5 * log(var + eps))`` without the factor H x W. Against the base
density (summed over every value), the normalisation's change of volume counts 1/16 of
what it does here (4x4 maps): shrinking through the batch norm costs almost nothing, so
the flow stretches in its couplings (fully counted) and squeezes the result back in the
batch norm (barely counted). The loss keeps falling, the true likelihood does not follow.

Reported: "log determinant is wrong" - https://github.com/tensorflow/probability/issues/238
(TensorFlow Probability's BatchNormalization bijector: "I think the log-determinant should
be multiplied by the dimension of inputs tensor ... for image inputs"). Here a RealNVP on
the 8x8 digits (squeezed to 4 channels of 4x4; four steps of [affine coupling with a
tanh-bounded log-scale, batch-norm flow layer, channel reversal]), dequantised pixels,
Adam 2e-3, batch 64, 200 steps; held out in eval mode (the running statistics) with the
true log-determinant. The bug's last training loss is -102 per image against the twin's
-54, while its true held-out likelihood is the worse: on held-out digits its couplings
add +185 nats of log-determinant and its batch norms (truly counted) -110, where the
twin's give -47 and +191; the bug's latent codes have std 0.72 (the twin's 1.00).
Fix: multiply the batch norm's per-channel log-determinant by the number of positions it
is applied at (H x W).

Measured (held-out negative log-likelihood of dequantised digits, nats per pixel): 0.007
with the bug, -0.830 fixed; seeds + 1000: 0.009 vs -0.842.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._hand_flows307 import (batch_rows, conditioner, dequantise,
                                                  nats_per_pixel, pixel_levels, squeeze,
                                                  standard_normal_log_density)

TITLE = "log determinant is wrong"
LINK = "https://github.com/tensorflow/probability/issues/238"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 200
LR = 2e-3
BATCH = 64
FLOW_STEPS = 4


class AffineCoupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = conditioner()
        self.scale = nn.Parameter(torch.ones(1, 2, 1, 1))   # RealNVP: tanh times a learned scale

    def forward(self, x):
        kept, moved = x[:, :2], x[:, 2:]
        raw, shift = self.net(kept).chunk(2, dim=1)
        log_scale = self.scale * torch.tanh(raw)
        moved = moved * torch.exp(log_scale) + shift
        return torch.cat([kept, moved], 1), log_scale.flatten(1).sum(1)


class BatchNormFlow(nn.Module):
    """Batch normalisation as a flow layer (RealNVP): batch statistics in training, running
    ones in eval; a learned per-channel log-scale and shift."""

    def __init__(self, channels, per_pixel, momentum=0.1, eps=1e-4):
        super().__init__()
        self.per_pixel, self.momentum, self.eps = per_pixel, momentum, eps
        self.log_gamma = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.beta = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.register_buffer("running_mean", torch.zeros(1, channels, 1, 1))
        self.register_buffer("running_var", torch.ones(1, channels, 1, 1))

    def forward(self, x):
        if self.training:
            mean = x.mean((0, 2, 3), keepdim=True)
            var = x.var((0, 2, 3), keepdim=True, unbiased=False)
            with torch.no_grad():
                self.running_mean.lerp_(mean, self.momentum)
                self.running_var.lerp_(var, self.momentum)
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean) / torch.sqrt(var + self.eps) * torch.exp(self.log_gamma) + self.beta
        log_det = (self.log_gamma - 0.5 * torch.log(var + self.eps)).sum()
        if self.per_pixel:
            log_det = log_det * x.shape[2] * x.shape[3]     # every position of the channel
        return y, log_det.expand(len(x))                    # BUG (per_pixel False): one pixel's


class RealNVP(nn.Module):
    def __init__(self, per_pixel):
        super().__init__()
        layers = []
        for _ in range(FLOW_STEPS):
            layers += [AffineCoupling(), BatchNormFlow(4, per_pixel)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        z, log_det = squeeze(x), torch.zeros(len(x))
        for layer in self.layers:
            z, layer_log_det = layer(z)
            log_det = log_det + layer_log_det
            if isinstance(layer, BatchNormFlow):
                z = z.flip(1)                               # reverse the channels
        return z, log_det


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = pixel_levels()
    noise = np.random.default_rng(1)
    flow = RealNVP(per_pixel=fixed)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for rows in batch_rows(len(train), steps, BATCH, seed=2):
            x = dequantise(train[rows], noise)
            optimizer.zero_grad()
            z, log_det = flow(x)
            loss = -(standard_normal_log_density(z) + log_det).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    flow.eval()
    for layer in flow.layers:
        if isinstance(layer, BatchNormFlow):
            layer.per_pixel = True                          # score with the true log-determinant
    with torch.no_grad():
        x = dequantise(held_out, np.random.default_rng(3))
        z, log_det = flow(x)
        mon.held_out_nll = nats_per_pixel(standard_normal_log_density(z) + log_det)
        mon.final_loss = float(loss)
    return mon
