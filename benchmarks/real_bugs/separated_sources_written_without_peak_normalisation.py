"""A two-speaker separator trained with utterance-level PIT on SI-SNR, whose separated
sources are then written out as audio samples in [-1, 1] as they come out of the model.
SI-SNR is blind to the level of an estimate, so the level the model outputs is left to the
random initialisation and to the optimizer's drift - here several times the mixture's. The
separation itself is good (whole-signal SI-SNR is as good as the fixed run's, the training
loss is the same), but written to a [-1, 1] sample format the sources clip, and the clipped
sources are far worse than what the model separated.

Reported: "outputs of separation module is clipping" -
https://github.com/pyannote/pyannote-audio/issues/1729 (the PixIT speech-separation
pipeline's sources showed a very high level of clipping; the maintainers: the separation
loss is scale-invariant, so the separated sources can be scaled up or down massively; fixed
in https://github.com/pyannote/pyannote-audio/pull/1730 by peak-normalising the separated
sources before they are returned). Here two synthetic voices
(benchmarks/real_bugs/_separation.py) in a mixture peak-normalised to 0.9, a two-mask TasNet
with ReLU masks (Conv-TasNet's default), Adam; the run is identical in both versions up to
the write. Fix: each separated source scaled to the mixture's peak before it is written.

Measured (500 steps, batch 16, 256 held-out mixtures; held-out SI-SNR improvement over the
mixture in dB with PIT, of the sources as written, and the share of written samples at the
clip; the sources as the model gives them score the same in both runs): seed 0, 3.14 dB
for the bug against 3.39 dB for the fixed twin, 10.4% of the bug's written samples clipped
(none fixed); seeds shifted by 1000, 2.13 against 2.61 dB, 18.1% clipped.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._separation import TasNet, pit_si_snr, si_snr, voices

TITLE = "outputs of separation module is clipping"
LINK = "https://github.com/pyannote/pyannote-audio/issues/1729"
EXPECTED = ("SCALE_INVARIANT_LOSS_LEAVES_LEVEL_FREE",)
STEPS = 500
BATCH, HELD_OUT = 16, 256
PEAK = 0.9


def mixtures(n, rng):
    sources = torch.stack([voices(n, rng), voices(n, rng)], dim=1)
    gain = PEAK / sources.sum(1).abs().amax(-1)
    sources = sources * gain[:, None, None]
    return sources.sum(1), sources


def written(estimates, mixture, fixed):
    """The separated sources as a [-1, 1] sample format stores them."""
    if fixed:       # peak-normalised to the mixture's peak first
        peak = estimates.abs().amax(-1, keepdim=True).clamp_min(1e-8)
        estimates = estimates / peak * mixture.abs().amax(-1)[:, None, None]
    return estimates.clamp(-1.0, 1.0)       # BUG (unfixed): the model's own level clips


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_mix, held_sources = mixtures(HELD_OUT, np.random.default_rng(1))
    model = TasNet(sources=2, mask="relu")
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            mixture, sources = mixtures(BATCH, rng)
            best, _ = pit_si_snr(model(mixture), sources)
            loss = -best.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        estimates = model(held_mix)
        out = written(estimates, held_mix, fixed)
        base = (si_snr(held_mix, held_sources[:, 0]) + si_snr(held_mix, held_sources[:, 1])) / 2
        mon.held_out_si_snri = (pit_si_snr(out, held_sources)[0] - base).mean().item()
        mon.held_out_model_si_snri = (pit_si_snr(estimates, held_sources)[0] - base).mean().item()
        mon.held_out_clipped_share = (out.abs() >= 1.0).float().mean().item()
    return mon
