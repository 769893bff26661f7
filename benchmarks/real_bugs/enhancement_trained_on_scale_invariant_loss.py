"""A Conv-TasNet masker used for speech ENHANCEMENT (one voice out of voice + noise) trained
on negative SI-SNR, the separation loss it ships with. SI-SNR rescales the reference to the
estimate before comparing them, so the loss is the same for the estimate and for any
multiple of it: nothing in training ties the output's level to the clean voice's. The loss
falls, nothing errors, but the level the model outputs is whatever the random encoder,
decoder and masks happened to give (and its drift under the optimizer): measured against
the clean voice, the "enhanced" signal is worse than the noisy input.

Reported: "Bad performance when using for speech enhancement" -
https://github.com/kaituoxu/Conv-TasNet/issues/33 (Conv-TasNet with its SI-SNR loss trained
for enhancement gave weird waveforms even with a sigmoid mask; the answer: "It seems to be
caused by the choice of loss function, i.e., SI-SDR. SI-SDR does not restrict the magnitude
of waveform ... you can replace SI-SDR loss with other loss options like SNR or wave-L_1").
Here 512-sample synthetic voices (benchmarks/real_bugs/_separation.py) under white noise at
0 dB, a one-mask TasNet with ReLU masks (Conv-TasNet's default), Adam. Fix: the negative
plain SNR as the loss.

Measured (600 steps, batch 16, 256 held-out clips; held-out SNR of the enhanced signal
against the clean voice in dB, the noisy input scoring 0.0; held-out SI-SNR; the median
ratio of the output's level to the clean voice's): seed 0, SNR -8.8 dB for the bug against
7.0 dB for the fixed twin (SI-SNR -7.3 against 6.2, level x2.7 against x0.92); seeds
shifted by 1000, SNR -1.1 against 7.2 (SI-SNR 2.6 against 6.3, level x1.75 against x0.90).
The bug run's level drifts with its unbounded masks, and with it even its SI-SNR falls
behind. The fixed twin draws LOSS_UNBOUNDED_BELOW at both seeds: its -SNR loss starts near
0 dB and falls to about -7 (a healthy enhancement curve; every SNR loss is negative once
the output beats the input).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._separation import TasNet, si_snr, snr, voices

TITLE = "Bad performance when using for speech enhancement"
LINK = "https://github.com/kaituoxu/Conv-TasNet/issues/33"
EXPECTED = ("SCALE_INVARIANT_LOSS_LEAVES_LEVEL_FREE",)
STEPS = 600
BATCH, HELD_OUT = 16, 256


def noisy_batch(n, rng):
    clean = voices(n, rng)
    noise = torch.from_numpy(rng.normal(0, 1, clean.shape).astype(np.float32))
    noise = noise * clean.norm(dim=1, keepdim=True) / noise.norm(dim=1, keepdim=True)  # 0 dB
    return clean + noise, clean


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_noisy, held_clean = noisy_batch(HELD_OUT, np.random.default_rng(1))
    model = TasNet(sources=1, mask="relu")     # Conv-TasNet's default mask
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            noisy, clean = noisy_batch(BATCH, rng)
            enhanced = model(noisy)[:, 0]
            if fixed:
                loss = -snr(enhanced, clean).mean()        # the level counts
            else:
                loss = -si_snr(enhanced, clean).mean()     # BUG: blind to the output's level
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        enhanced = model(held_noisy)[:, 0]
        mon.held_out_snr = snr(enhanced, held_clean).mean().item()
        mon.held_out_si_snr = si_snr(enhanced, held_clean).mean().item()
        mon.output_level_ratio = (enhanced.norm(dim=1) / held_clean.norm(dim=1)).median().item()
    return mon
