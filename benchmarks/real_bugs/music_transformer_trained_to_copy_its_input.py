"""A music transformer fed the target melody and asked to output that same melody: the
input is not shifted against the target, so under the causal mask every position can read
the note it must predict, and the model learns to copy its input instead of the next note.

Reported: "Mistakes in the Implementation" -
https://github.com/COMP6248-Reproducability-Challenge/music-transformer-comp6248/issues/4
(a review of a Music Transformer reproduction: "You are feeding the transformer the
original target sequence and telling it to output the target sequence"). Here a 2-layer
causal transformer over MIDI pitch tokens (synthetic melodies: a motif of 3-6 notes
repeated, one note in ten wrong), Adam 3e-3, 250 steps of 32 windows. Fix: read
melody[:, :-1] and predict melody[:, 1:].

Measured harm (held-out next-note accuracy given only the notes so far, 512 melodies):
0.01 vs 0.78; seeds + 1000: 0.01 vs 0.78.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._music import MusicTransformer, melodies, row_batches

TITLE = "Mistakes in the Implementation"
LINK = "https://github.com/COMP6248-Reproducability-Challenge/music-transformer-comp6248/issues/4"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 250


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = melodies(2048, seed=0)
    model = MusicTransformer()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for melody in row_batches(train, steps):
            if fixed:
                inputs, target = melody[:, :-1], melody[:, 1:]
            else:
                inputs, target = melody[:, :-1], melody[:, :-1]   # BUG: the target itself
            logits = model(inputs)
            loss = F.cross_entropy(logits.transpose(1, 2), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
