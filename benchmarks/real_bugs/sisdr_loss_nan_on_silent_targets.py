"""A spectrogram-mask enhancer trained on the negative SI-SDR of its enhanced waveform, whose
training set holds noise-only clips (one clip in ten has no voice: the clean target is all
zeros, as enhancement recipes mix in to teach the model to output silence). The SI-SDR is
written with its epsilon in the denominators only: on a silent target the projection of the
estimate onto the target is zero, the target energy in the numerator is exactly 0, and
10 log10(0 / residual) is -inf. The first batch that holds a noise-only clip makes the loss
infinite, its backward turns the gradients into NaN, Adam writes NaN into every weight, and
from there on the loss prints nan and the model outputs nan.

Reported: "SDR loss sensitive to nan" - https://github.com/csteinmetz1/auraloss/issues/25
(the maintainer: "My guess is that this is caused when the target contains values of all
zeros"; fixed by adding the epsilon to the numerator's energy as well). Here synthetic voices
under white noise at 0 dB (benchmarks/real_bugs/_stft312.py), one training clip in ten
noise-only, a two-layer convolutional mask estimator on the noisy log-magnitude whose mask
times the complex noisy STFT goes through torch.istft, Adam. Fix: the epsilon inside both
energies, 10 log10((|target|^2 + eps) / (|residual|^2 + eps)).

Measured (300 steps, batch 32, 256 held-out clips with a voice; held-out SI-SNR of the
enhanced waveform against the clean voice in dB, the noisy input scoring 0.0): seed 0,
nan for the bug (the weights are NaN from the first batch that holds a noise-only clip)
against 4.8 dB for the fixed twin; seeds shifted by 1000, nan against 4.2. The bug is loud
(the printed loss is nan), not silent. The fixed twin's noise-only clips still score
10 log10(|residual|^2 / eps) (tens of dB at first, 1 to 20 dB by the end, as it learns to
output near-silence there) against about -5 dB for a voiced clip: on those clips the loss
divides by the epsilon, the report's fix as written (a recipe would rather leave silent
targets out of the SI-SDR).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._separation import si_snr
from benchmarks.real_bugs._stft312 import MaskNet, istft, noisy_clips, stft

TITLE = "SDR loss sensitive to nan"
LINK = "https://github.com/csteinmetz1/auraloss/issues/25"
EXPECTED = ("NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD")
STEPS = 300
BATCH, HELD_OUT = 32, 256
EPS = 1e-8


def neg_si_sdr(estimate, target, fixed):
    estimate = estimate - estimate.mean(-1, keepdim=True)
    target = target - target.mean(-1, keepdim=True)
    alpha = (estimate * target).sum(-1, keepdim=True) / ((target ** 2).sum(-1, keepdim=True) + EPS)
    target = alpha * target
    residual = estimate - target
    if fixed:
        ratio = ((target ** 2).sum(-1) + EPS) / ((residual ** 2).sum(-1) + EPS)
    else:
        ratio = (target ** 2).sum(-1) / ((residual ** 2).sum(-1) + EPS)   # BUG: 0 when silent
    return -10 * torch.log10(ratio).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_noisy, held_clean, _ = noisy_clips(HELD_OUT, np.random.default_rng(1))
    model = MaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            noisy, clean, noise = noisy_clips(BATCH, rng)
            silent = torch.from_numpy(rng.random(BATCH) < 0.1)     # noise-only clips
            clean = torch.where(silent[:, None], torch.zeros_like(clean), clean)
            noisy = torch.where(silent[:, None], noise, noisy)
            spec = stft(noisy)
            enhanced = istft(model(spec.abs()) * spec)
            loss = neg_si_sdr(enhanced, clean, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        spec = stft(held_noisy)
        enhanced = istft(model(spec.abs()) * spec)
        mon.held_out_si_snr = si_snr(enhanced, held_clean).mean().item()
    return mon
