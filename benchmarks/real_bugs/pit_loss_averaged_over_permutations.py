"""A two-speaker spectrogram-mask separator whose permutation-invariant loss AVERAGES the
two speaker assignments instead of taking the better one: the loss is the mean of
(mask 1 -> speaker 1, mask 2 -> speaker 2) and (mask 1 -> speaker 2, mask 2 -> speaker 1).
Each mask is then pulled towards both speakers with equal weight, and the optimum of that
loss is both masks equal, each the average of the two speakers' magnitudes over the
mixture. The loss falls (the masks learn the voices' common shape and where the mixture is
loud), nothing errors, and the two outputs come out the same half-and-half mixture.

Reported: "Have you ever faced the problem that two masks always turns to equal during the
training" - https://github.com/snsun/pit-speech-separation/issues/21 (a basic PIT model,
CNN or RNN: "two masks trend to have equal values during the training"; the maintainer:
"The most possible reason is that you PIT loss function implementation has bug"). The
report does not show the loss; here the
mistake is the one that gives exactly its symptom, the assignments averaged where PIT takes
their minimum. Two synthetic voices at equal level (benchmarks/real_bugs/_stft312.py), a
two-layer convolutional estimator of two sigmoid masks on the mixture's log-magnitude, MSE
between each masked mixture magnitude and its speaker's magnitude, Adam. Fix: the minimum
of the two assignments' losses, per mixture (utterance-level PIT).

Measured (300 steps, batch 32, 256 held-out mixtures; held-out SNR improvement over the
mixture in dB, each output - its mask times the complex mixture STFT - scored against the
speaker it matches best): seed 0, 2.9 dB for the bug against 8.9 dB for the fixed twin;
seeds shifted by 1000, 2.9 against 8.4 (2.9 dB is what half the mixture scores: both outputs
are the same half-and-half mixture).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._stft312 import MaskNet, istft, snr, stft, two_voices

TITLE = ("Have you ever faced the problem that two masks always turns to equal during the "
         "training")
LINK = "https://github.com/snsun/pit-speech-separation/issues/21"
EXPECTED = ("PERMUTATION_LOSS_AVERAGED",)
STEPS = 300
BATCH, HELD_OUT = 32, 256


def assignment_loss(estimates, targets):
    """(B,) MSE of each estimate against the target in the same slot."""
    return ((estimates - targets) ** 2).mean(dim=(1, 2, 3))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_mix, held_sources = two_voices(HELD_OUT, np.random.default_rng(1))
    model = MaskNet(sources=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            mix, sources = two_voices(BATCH, rng)
            mix_mag = stft(mix).abs()
            source_mags = torch.stack([stft(sources[:, 0]).abs(), stft(sources[:, 1]).abs()], 1)
            estimates = model(mix_mag) * mix_mag.unsqueeze(1)
            straight = assignment_loss(estimates, source_mags)
            swapped = assignment_loss(estimates, source_mags.flip(1))
            if fixed:
                loss = torch.minimum(straight, swapped).mean()      # utterance-level PIT
            else:
                loss = ((straight + swapped) / 2).mean()            # BUG: both assignments
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        spec = stft(held_mix)
        masks = model(spec.abs())
        outputs = torch.stack([istft(masks[:, 0] * spec), istft(masks[:, 1] * spec)], 1)
        straight = (snr(outputs[:, 0], held_sources[:, 0]) +
                    snr(outputs[:, 1], held_sources[:, 1])) / 2
        swapped = (snr(outputs[:, 1], held_sources[:, 0]) +
                   snr(outputs[:, 0], held_sources[:, 1])) / 2
        baseline = (snr(held_mix, held_sources[:, 0]) + snr(held_mix, held_sources[:, 1])) / 2
        mon.held_out_snr_improvement = (torch.maximum(straight, swapped) - baseline).mean().item()
    return mon
