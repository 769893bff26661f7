"""A spectrogram-mask enhancer whose enhanced waveform is rebuilt from the masked MAGNITUDE
spectrogram alone: the mask is applied to |STFT(noisy)|, and that real, non-negative array is
handed to the inverse STFT as if it were the spectrogram, so every bin gets phase zero. The
network and its training are fine (the masked magnitude matches the clean magnitude better
and better, the loss falls); only the step that turns the estimate back into audio throws
the phase away. With every phase zero, each frame's inverse FFT is a pulse at the frame's
first sample, where the Hann synthesis window is close to zero: the overlap-add gives back
a quiet train of clicks (about a quarter of the voice's level even with no mask at all), no
more like the clean voice than silence is, and worse than the noisy input.

Reported: "Vocal separation example code has an issue with playable audio reconstruction" -
https://github.com/librosa/librosa/issues/1285 (the vocal-separation example masks the
magnitude spectrogram; "if you reconstruct the audio from the masked magnitude spectrogram,
you get distortions because the phase is gone"; the fix: apply the mask to the complex
spectrogram, i.e. reuse the mixture's phase, before the inverse STFT). Here synthetic voices
under white noise at 0 dB (benchmarks/real_bugs/_stft312.py), a two-layer convolutional
mask estimator on the noisy log-magnitude, trained with MSE between the masked noisy
magnitude and the clean magnitude, Adam; both runs train identically. Fix: the mask times
the complex noisy STFT (the noisy phase reused) before torch.istft.

Measured (300 steps, batch 32, 256 held-out clips; held-out SNR of the enhanced waveform
against the clean voice in dB, the noisy input scoring 0.0): seed 0, -0.2 dB for the bug
against 7.2 dB for the fixed twin; seeds shifted by 1000, -0.2 against 7.4. The bug lives
after the watched loop, in the reconstruction.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._stft312 import MaskNet, istft, noisy_clips, snr, stft

TITLE = "Vocal separation example code has an issue with playable audio reconstruction"
LINK = "https://github.com/librosa/librosa/issues/1285"
EXPECTED = ("POSTPROCESSING_NOT_INVERSE_OF_PREPROCESSING",)
STEPS = 300
BATCH, HELD_OUT = 32, 256


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    held_noisy, held_clean, _ = noisy_clips(HELD_OUT, np.random.default_rng(1))
    model = MaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            noisy, clean, _ = noisy_clips(BATCH, rng)
            noisy_mag, clean_mag = stft(noisy).abs(), stft(clean).abs()
            loss = torch.nn.functional.mse_loss(model(noisy_mag) * noisy_mag, clean_mag)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        spec = stft(held_noisy)
        mask = model(spec.abs())
        if fixed:
            enhanced = istft(mask * spec)                       # the noisy phase reused
        else:
            enhanced = istft(torch.complex(mask * spec.abs(),   # BUG: magnitude only,
                                           torch.zeros_like(mask)))  # every phase zero
        mon.held_out_snr = snr(enhanced, held_clean).mean().item()
    return mon
