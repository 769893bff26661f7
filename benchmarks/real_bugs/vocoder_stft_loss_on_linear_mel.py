"""A vocoder trained with a mel-spectrogram L1 loss on LINEAR mel magnitudes where the
log-mel was meant. Speech energy falls steeply with frequency and between loud and quiet
clips by orders of magnitude, so a linear-magnitude distance is all but made of the loud low
bands of the loud clips: the upper bands, and everything in a quiet clip, weigh next to
nothing. The loss falls smoothly, nothing is wrong with any gradient; the vocoder simply
learns what a log-spectral (perceptual) measure cares about much less well.

Reported: "STFT loss use linear-mel scale spectrogram" -
https://github.com/revsic/torch-diffusion-wavegan/issues/1 (the author's own note that the
repository's STFT loss compared linear-scale mel spectrograms and "should be fixed to
log-mel scale spectrogram"). Here: the batch-201 voiced-sound corpus
(benchmarks/real_bugs/_tts.py: gliding harmonic tones with k^-1.5 harmonic fall-off and a
formant, clip gains log-uniform over 0.01..1, 16-band log-mel input at a nominal 8 kHz), a
convolutional frame vocoder trained on the mel loss alone, Adam 1e-3. Fix: the L1 distance
between log-mels (magnitudes floored at 1e-5), as HiFi-GAN's mel loss does.

Measured (600 steps, batch 32; held-out log-mel L1 of the generated waveforms, 256 clips,
and the same over the upper 8 mel bands): seed 0, 0.566 for the bug against 0.458 for the
fixed twin (upper bands 0.709 against 0.528); seeds shifted by 1000, 0.540 against 0.483
(0.669 against 0.578).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import (FrameVocoder, index_batches, linear_mel, log_mel,
                                       vocoder_corpus)

TITLE = "STFT loss use linear-mel scale spectrogram"
LINK = "https://github.com/revsic/torch-diffusion-wavegan/issues/1"
EXPECTED = ("SPECTRAL_LOSS_ON_LINEAR_MAGNITUDES",)
STEPS = 600
LR = 1e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = vocoder_corpus(0)
    model = FrameVocoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train["wave"]), steps, 32, 0):
            fake = model(train["mel"][index])
            if fixed:
                loss = (log_mel(fake) - train["mel"][index]).abs().mean()
            else:           # BUG: linear mel magnitudes, dominated by loud low bands
                loss = (linear_mel(fake) - linear_mel(train["wave"][index])).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        error = (log_mel(model(held["mel"])) - held["mel"]).abs()
    mon.held_out_log_mel_error = round(error.mean().item(), 3)
    mon.held_out_upper_band_error = round(error[:, error.shape[1] // 2:].mean().item(), 3)
    return mon
