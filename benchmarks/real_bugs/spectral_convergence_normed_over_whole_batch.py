"""A vocoder's STFT loss whose spectral-convergence term takes the Frobenius norm over the
whole batch, ``||Y - Y_hat||_F / ||Y||_F`` with the batch axis inside both norms, where the
term is meant per utterance (norms over time and frequency, then the batch mean). Pooled
over the batch, the ratio is a ratio of sums of squares: a loud clip's error dominates both,
and a clip 20 times quieter weighs 400 times less. Quiet utterances are barely fitted; the
loss still falls and nothing breaks.

Reported: ""fro" norm loss function" - https://github.com/kan-bayashi/ParallelWaveGAN/issues/256
(the reporter noticed that a commit changed the spectral convergence loss to ``torch.norm(...,
p="fro")`` over all dimensions, batch included, so "one data sample can affect the loss
values of other data samples", where the multi-resolution STFT paper normalises each
sample over time and frequency; fix: the norms over dims (1, 2) per sample, then the mean).
Here: the batch-201 voiced-sound corpus (benchmarks/real_bugs/_tts.py; clip gains
log-uniform over 0.01..1), a convolutional frame vocoder trained on ParallelWaveGAN's
single-resolution STFT loss (spectral convergence + L1 of log magnitudes, a 128-point Hann
STFT), Adam 1e-3. Fix: spectral convergence per clip, averaged over the batch.

Measured (600 steps, batch 32; held-out spectral convergence per clip, 256 clips, over all
clips and over the quiet ones, gain < 0.1): seed 0, 1.18 for the bug against 0.75 for the
fixed twin (quiet clips 1.60 against 0.80); seeds shifted by 1000, 2.64 against 0.86
(quiet 4.25 against 0.92).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import FrameVocoder, index_batches, magnitudes, vocoder_corpus

TITLE = '"fro" norm loss function'
LINK = "https://github.com/kan-bayashi/ParallelWaveGAN/issues/256"
EXPECTED = ("LOSS_NORMALISED_ACROSS_BATCH",)
STEPS = 600
LR = 1e-3
QUIET = 0.1


def spectral_convergence(real, fake, per_clip):
    if per_clip:
        return torch.linalg.norm(real - fake, dim=(1, 2)) / torch.linalg.norm(real, dim=(1, 2))
    return torch.linalg.norm(real - fake) / torch.linalg.norm(real)   # one ratio per batch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = vocoder_corpus(0)
    model = FrameVocoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train["wave"]), steps, 32, 0):
            real = magnitudes(train["wave"][index])
            fake = magnitudes(model(train["mel"][index]))
            # BUG (fixed=False): the norms pool the batch axis
            convergence = spectral_convergence(real, fake, per_clip=fixed).mean()
            log_magnitude = (torch.log(real.clamp(min=1e-7))
                             - torch.log(fake.clamp(min=1e-7))).abs().mean()
            loss = convergence + log_magnitude
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        per_clip = spectral_convergence(magnitudes(held["wave"]),
                                        magnitudes(model(held["mel"])), per_clip=True)
    quiet = held["gain"] < QUIET
    mon.held_out_spectral_convergence = round(per_clip.mean().item(), 3)
    mon.held_out_quiet_spectral_convergence = round(per_clip[quiet].mean().item(), 3)
    return mon
