"""A WaveNet with a discretised mixture-of-logistics output whose loss sums the components'
log-probabilities before it weights them: ``sum(log_probs, dim=-1, keepdim=True) +
log_softmax(logit_probs)`` then ``logsumexp`` over the components. The code came from
PixelCNN++, where that sum runs over an image's colour channels; for a one-channel
waveform the last axis is the mixture, so the loss becomes minus the SUM of every
component's log-likelihood (the mixture weights drop out: their log-softmax sums to one
under the logsumexp). Every component is pulled onto every sample, the mixture collapses
into one logistic, and the weights get no gradient. The loss falls; nothing errors.

Reported: "It's not necessary to sum up 'log_probs' at the last dimension in
discretized_mix_logistic_loss function" - https://github.com/r9y9/wavenet_vocoder/issues/33
(labelled bug: the reporter explained that PixelCNN++ sums over RGB channels while a
waveform has one channel, so the line should be ``log_probs + log_softmax(logit_probs)``; a
second report, #34, saw the per-sample probabilities come out near exp(-50) instead of
exp(-5); the maintainer: "Sorry for the stupid bug. It's fixed now").
Here a gated WaveNet over a decaying walk that at each step stays or jumps by +-0.4 (the
next value is three-peaked; benchmarks/real_bugs/_autoregressive.py), 5 logistics over
256 bins in [-1, 1]. Fix: ``log_probs + log_softmax(logit_probs)`` before the logsumexp.

Measured (250 Adam steps, batch 32, 400 held-out walks of 64 steps, held-out mixture
negative log-likelihood of the next value, nats per sample, lower is better): seed 0 - bug
4.94, fixed 3.41; seeds shifted by 1000 - bug 4.94, fixed 3.37 (the output layer's
log-scale biases start at -3, narrow logistics, in both).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import WaveNet, jump_walks, row_batches

TITLE = ("It's not necessary to sum up 'log_probs' at the last dimension in "
         "discretized_mix_logistic_loss function")
LINK = "https://github.com/r9y9/wavenet_vocoder/issues/33"
EXPECTED = ("MIXTURE_LOG_PROBS_SUMMED_OVER_COMPONENTS",)
STEPS = 250
LENGTH = 64
MIXTURES = 5
HALF_BIN = 1 / 255                 # 256 bins over [-1, 1]


def component_log_probs(params, x):
    """params (B, 3 * MIXTURES, T), x (B, T) -> (B, T, MIXTURES) discretised logistic
    log-probabilities of x under each component, and (B, T, MIXTURES) mixture logits."""
    logits, means, log_scales = params.transpose(1, 2).chunk(3, dim=-1)
    log_scales = log_scales.clamp(min=-7.0)
    centred = x.unsqueeze(-1) - means
    inv_scale = torch.exp(-log_scales)
    cdf_plus = torch.sigmoid(inv_scale * (centred + HALF_BIN))
    cdf_min = torch.sigmoid(inv_scale * (centred - HALF_BIN))
    mass = torch.where(x.unsqueeze(-1) < -0.999, cdf_plus,
                       torch.where(x.unsqueeze(-1) > 0.999, 1 - cdf_min, cdf_plus - cdf_min))
    return torch.log(mass.clamp(min=1e-12)), logits


def mixture_nll(params, x):
    log_probs, logits = component_log_probs(params, x)
    return -torch.logsumexp(log_probs + F.log_softmax(logits, -1), dim=-1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = jump_walks(2000, LENGTH + 1, seed=0)
    held_out = jump_walks(400, LENGTH + 1, seed=1)
    model = WaveNet(3 * MIXTURES)
    with torch.no_grad():                     # start the logistics narrow (scale e^-3)
        model.head[-1].bias[2 * MIXTURES:] = -3.0
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for walk in row_batches(train, steps):
            optimizer.zero_grad()
            params = model(walk[:, :-1])              # output t: the law of sample t + 1
            if fixed:
                loss = mixture_nll(params, walk[:, 1:])
            else:   # BUG: PixelCNN++'s sum over colour channels, here over the components
                log_probs, logits = component_log_probs(params, walk[:, 1:])
                log_probs = log_probs.sum(dim=-1, keepdim=True) + F.log_softmax(logits, -1)
                loss = -torch.logsumexp(log_probs, dim=-1).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_nll = mixture_nll(model(held_out[:, :-1]), held_out[:, 1:]).item()
    return mon
