"""A FastSpeech-style encoder whose sinusoidal positional encodings are multiplied by the
padding mask the wrong way round: the mask handed over is True on the PADDED phonemes
(the key-padding convention), while the positional code expects True on the real ones, so
every real phoneme's position vector is multiplied by 0 (and the padding gets positions it
never uses). The transformer encoder then sees a bag of phonemes: self-attention without
positions cannot tell which phoneme comes next, and here a phoneme's duration and its
frames' co-articulation depend on its right-hand neighbour. Training runs, the loss falls
(the per-phoneme part is learnt), duration prediction stays poor.

Reported: "Severe BUG: `pos` is unexpectedly all zero." -
https://github.com/speechbrain/speechbrain/issues/2276 (the reporter, reproducing
FastSpeech2, found that the positional embedding was zeroed by a source mask that is True
on pad positions, shown by setting the positions to 0 by hand and getting the very same
audio; the fix the report gives is to multiply by the inverted mask, True on the real
tokens). Here: FastSpeechLite (benchmarks/real_bugs/_tts.py), a
two-layer transformer encoder, a log-duration predictor and a frame decoder fed through a
length regulator with the true durations, on a synthetic phoneme-to-mel corpus.
Fix: multiply the positions by the non-padding mask (``text != 0``).

Measured (400 Adam steps, batch 32, 384 held-out utterances; predicted durations rounded
from the log-duration head): seed 0, durations exactly right 0.67 for the bug against 0.99
for the fixed twin (mean error 0.33 against 0.02 frames), mel MSE with the true durations
0.059 against 0.014. Seeds shifted by 1000: 0.68 against 0.99 (0.32 against 0.01 frames),
mel MSE 0.057 against 0.016.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import (TRAIN, FastSpeechLite, corpus, frame_mask,
                                       index_batches)

TITLE = "Severe BUG: `pos` is unexpectedly all zero."
LINK = "https://github.com/speechbrain/speechbrain/issues/2276"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 400


def losses(model, batch, fixed):
    text, dur, mel = batch["text"], batch["dur"], batch["mel"]
    real = text != 0
    # BUG: the key-padding mask (True on padding) multiplies the positions
    position_mask = real if fixed else ~real
    log_dur, mel_out = model(text, position_mask, dur)
    dur_loss = ((log_dur - torch.log(dur.float() + 1)) ** 2)[real].mean()
    mask = frame_mask(batch["mel_len"])
    mel_loss = ((mel_out - mel) ** 2).mean(-1)[mask].mean()
    return dur_loss, mel_loss, log_dur


@torch.no_grad()
def held_out_report(model, held, fixed):
    model.eval()
    dur_loss, mel_loss, log_dur = losses(model, held, fixed)
    model.train()
    real = held["text"] != 0
    predicted = (log_dur.exp() - 1).round().clamp(min=1)
    exact = (predicted == held["dur"].float())[real].float().mean().item()
    mae = (predicted - held["dur"].float()).abs()[real].mean().item()
    return {"duration_exact": round(exact, 3), "duration_mae_frames": round(mae, 3),
            "mel_mse": round(mel_loss.item(), 4)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = corpus(seed=0)
    model = FastSpeechLite()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            batch = {key: value[index] for key, value in train.items()}
            optimizer.zero_grad()
            dur_loss, mel_loss, _ = losses(model, batch, fixed)
            loss = dur_loss + mel_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_report(model, held, fixed)
    return mon
