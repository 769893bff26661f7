"""A SEGAN-style enhancer trained, as SEGAN is, on pre-emphasised signals (y[t] = x[t] -
0.95 x[t-1], which lifts the high frequencies), whose enhanced output is turned back into
a waveform by a "de-emphasis" that is not the inverse of the pre-emphasis: it adds 0.95
times the previous INPUT sample, a one-tap filter, where undoing the pre-emphasis needs the
recursion on the previous OUTPUT sample. Training is untouched and its loss falls as it
should; every waveform the model delivers is filtered by 1 + 0.95 z^-1 where
1 / (1 - 0.95 z^-1) was due: a gain of 1.9 where 5.3 was due at 0.03 cycles a sample (a low
voice's fundamental) and 1.95 where 20 was due at 0 Hz, 0.05 where 0.51 was due at Nyquist;
only a band near 0.1 cycles comes out about right.

Reported: "de_emphasis function is broken" -
https://github.com/dansuh17/segan-pytorch/issues/17 ("batch != de_emphasis(pre_emphasis(
batch))"; a commenter gave the recursive version, result[t] = y[t] + coef * result[t-1];
fixed in https://github.com/dansuh17/segan-pytorch/pull/20 with the IIR filter
lfilter([1], [1, -coef])). Here synthetic voices under white noise at 0 dB
(benchmarks/real_bugs/_separation.py), a one-mask TasNet enhancer trained with L1 on the
pre-emphasised clean signal (SEGAN's L1 term), Adam; both runs train identically. Fix: the
recursive de-emphasis.

Measured (600 steps, batch 16, 256 held-out clips; held-out SNR of the delivered waveform
against the clean voice in dB, the noisy input scoring 0.0): seed 0, 0.7 dB for the bug
against 5.5 dB for the fixed twin; seeds shifted by 1000, 0.8 against 5.5. The bug lives
after the watched loop, in post-processing.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._separation import TasNet, snr, voices

TITLE = "de_emphasis function is broken"
LINK = "https://github.com/dansuh17/segan-pytorch/issues/17"
EXPECTED = ("POSTPROCESSING_NOT_INVERSE_OF_PREPROCESSING",)
STEPS = 600
BATCH, HELD_OUT = 16, 256
COEF = 0.95


def pre_emphasis(x):
    return torch.cat([x[:, :1], x[:, 1:] - COEF * x[:, :-1]], dim=1)


def de_emphasis(y, fixed):
    if not fixed:       # BUG: the previous INPUT sample, a one-tap filter, not the inverse
        return torch.cat([y[:, :1], y[:, 1:] + COEF * y[:, :-1]], dim=1)
    out = torch.empty_like(y)
    out[:, 0] = y[:, 0]
    for t in range(1, y.shape[1]):          # the recursion on the previous OUTPUT sample
        out[:, t] = y[:, t] + COEF * out[:, t - 1]
    return out


def noisy_batch(n, rng):
    clean = voices(n, rng)
    noise = torch.from_numpy(rng.normal(0, 1, clean.shape).astype(np.float32))
    noise = noise * clean.norm(dim=1, keepdim=True) / noise.norm(dim=1, keepdim=True)  # 0 dB
    return clean + noise, clean


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_noisy, held_clean = noisy_batch(HELD_OUT, np.random.default_rng(1))
    model = TasNet(sources=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            noisy, clean = noisy_batch(BATCH, rng)
            enhanced = model(pre_emphasis(noisy))[:, 0]
            loss = (enhanced - pre_emphasis(clean)).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        delivered = de_emphasis(model(pre_emphasis(held_noisy))[:, 0], fixed)
        mon.held_out_snr = snr(delivered, held_clean).mean().item()
    return mon
