"""A HiFi-GAN-style vocoder whose mel-spectrogram loss is computed from STFT magnitudes
taken through ``.data``: the generated waveform's spectrogram is cut from the graph, so the
L1 mel term (weighted 45, the term that ties the waveform to its conditioning mel) adds its
value to the logged loss and nothing to the gradient. The generator trains on the
adversarial and feature-matching terms alone; the loss is finite, every parameter moves,
and the printed mel loss even falls a little as the GAN learns to make voiced sound - but
not the sound of the mel it was given.

Reported: "Mel loss computation in the generator" -
https://github.com/rishikksh20/HiFi-GAN/issues/8 (the reporter found that the repository's
``stft.mel_spectrogram`` takes ``magnitudes = magnitudes.data``, so the mel of the fake
audio has no grad_fn and ``loss_mel`` does not contribute to training; the maintainer
agreed. Fix: keep the magnitudes in the graph). Here: the batch-201 voiced-sound corpus
(benchmarks/real_bugs/_tts.py: gliding harmonic tones, 1,024 samples at a nominal 8 kHz,
16-band log-mel input), a convolutional frame vocoder against a small strided waveform
discriminator, LSGAN losses, generator loss adv + 2 * feature matching + 45 * mel L1 (HiFi-GAN's
weights), Adam 2e-4 with betas (0.8, 0.99) for both. Fix: the mel of the generated
waveform computed with its gradient.

Measured (300 steps, batch 32; held-out log-mel L1 of the generated waveforms against the
conditioning mel, 256 clips): seed 0, 1.75 for the bug against 0.85 for the fixed twin;
seeds shifted by 1000, 1.47 against 0.80.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import (FILTERS, LOG_FLOOR, FrameVocoder, WaveDiscriminator,
                                       held_out_log_mel_error, index_batches, log_mel,
                                       magnitudes, vocoder_corpus)

TITLE = "Mel loss computation in the generator"
LINK = "https://github.com/rishikksh20/HiFi-GAN/issues/8"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
LR, BETAS = 2e-4, (0.8, 0.99)
FM_WEIGHT, MEL_WEIGHT = 2.0, 45.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = vocoder_corpus(0)
    model, disc = FrameVocoder(), WaveDiscriminator()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR, betas=BETAS)
    disc_optimizer = torch.optim.Adam(disc.parameters(), lr=LR, betas=BETAS)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train["wave"]), steps, 32, 0):
            real, mel = train["wave"][index], train["mel"][index]
            fake = model(mel)
            real_score, _ = disc(real)
            fake_score, _ = disc(fake.detach())
            disc_loss = ((real_score - 1) ** 2).mean() + (fake_score ** 2).mean()
            disc_optimizer.zero_grad()
            disc_loss.backward()
            disc_optimizer.step()

            fake_score, fake_features = disc(fake)
            _, real_features = disc(real)
            adversarial = ((fake_score - 1) ** 2).mean()
            matching = sum((f - r.detach()).abs().mean()
                           for f, r in zip(fake_features, real_features))
            if fixed:
                fake_mel = log_mel(fake)
            else:          # BUG: the magnitudes leave the graph, the mel term has no gradient
                fake_mel = torch.log(torch.clamp(FILTERS @ magnitudes(fake).data,
                                                 min=LOG_FLOOR))
            mel_loss = (fake_mel - mel).abs().mean()
            loss = adversarial + FM_WEIGHT * matching + MEL_WEIGHT * mel_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_log_mel_error = held_out_log_mel_error(model, held)
    return mon
