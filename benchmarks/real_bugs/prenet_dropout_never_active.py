"""A Tacotron decoder whose pre-net dropout is never switched on: the dropout call is made
without its training flag, which defaults to off, so in training the pre-net passes the
previous (teacher-forced) frame through untouched. Tacotron relies on that dropout as a
bottleneck: neighbouring mel frames are nearly equal, and a decoder that sees the true
previous frame clearly learns to copy it and lean on it, rather than on the attention
context. Teacher-forced loss looks better; synthesis, which feeds the decoder its own
frames, drifts.

Reported: "Dropout Bug in Prenet" - https://github.com/keithito/tacotron/issues/165 (the
reporter found that the pre-net's ``tf.layers.dropout`` was called without
``training=True``, so it was an identity op, and blamed it for the poor alignments with a
small reduction factor; the maintainer agreed it was a serious bug, and the fix - dropout
on while training - was merged in "Fix the bug of dropout and prenet",
https://github.com/keithito/tacotron/pull/205, whose author then learnt good alignments
with reduction factor 2). Other reports of the same mechanism: NVIDIA/tacotron2 #553 (a
decoder that can see the true previous frame "can just predict the previous frame").
Here: TacoAttention (benchmarks/real_bugs/_tts.py), a GRU decoder with content-based
attention over a GRU phoneme encoder, reduction factor 1, on a synthetic phoneme-to-mel
corpus. Fix: dropout 0.5 on in the pre-net while training (off at synthesis in both runs).

Measured (300 Adam steps, batch 32, 384 held-out utterances synthesised free-running for
their true number of frames): seed 0, mel MSE 0.248 for the bug against 0.102 for the fixed
twin (teacher-forced the bug looks better: 0.023 against 0.047). Seeds shifted by 1000:
0.263 against 0.103 (teacher-forced 0.024 against 0.055).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import TRAIN, TacoAttention, corpus, frame_mask, index_batches

TITLE = "Dropout Bug in Prenet"
LINK = "https://github.com/keithito/tacotron/issues/165"
EXPECTED = ("DROPOUT_NEVER_ACTIVE",)
STEPS = 300


@torch.no_grad()
def held_out_report(model, held):
    model.eval()
    mask = frame_mask(held["mel_len"])
    free = model(held["text"], held["mel"], dropout_on=False, free_running=True)
    forced = model(held["text"], held["mel"], dropout_on=False)
    model.train()
    def mse(out):
        return round(((out - held["mel"]) ** 2).mean(-1)[mask].mean().item(), 4)
    return {"free_running_mse": mse(free), "teacher_forced_mse": mse(forced)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = corpus(seed=0)
    model = TacoAttention()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            batch = {key: value[index] for key, value in train.items()}
            length = int(batch["mel_len"].max())
            mel = batch["mel"][:, :length]
            optimizer.zero_grad()
            # BUG: the pre-net's dropout is never switched on (training flag left False)
            out = model(batch["text"], mel, dropout_on=fixed and model.training)
            mask = frame_mask(batch["mel_len"], length)
            loss = ((out - mel) ** 2).mean(-1)[mask].mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_report(model, held)
    return mon
