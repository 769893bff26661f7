"""A MIDI transformer trained as a next-note generator with full (non-causal) self-attention:
the example configuration chose the "linear" attention type, which builds a full mask, so
during teacher-forced training every position also attends to the notes after it - the note
it must predict among them - and the training loss falls by copying; generation, which has
no future notes to read, gets a model that never learned to predict.

Reported: "About the attention type in the example config file" -
https://github.com/s-omranpour/MIDI-Transformer/issues/1 ("I thought TriangularCausalMask
should be used when training a music generation model, but the self attention type in the
example config is 'linear'"; the author: "When training with causal language modeling
objective, the self-attention type should be causal. I will correct it in the config
file"). Here a 2-layer transformer over MIDI pitch tokens (synthetic melodies: a motif of
3-6 notes repeated, one note in ten wrong), Adam 3e-3, 250 steps of 32 windows. Fix: the
causal (triangular) mask.

Measured harm (held-out next-note accuracy given only the notes so far, 512 melodies):
0.41 vs 0.78; seeds + 1000: 0.46 vs 0.78.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._music import MusicTransformer, melodies, row_batches

TITLE = "About the attention type in the example config file"
LINK = "https://github.com/s-omranpour/MIDI-Transformer/issues/1"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 250


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = melodies(2048, seed=0)
    model = MusicTransformer(causal=fixed)          # BUG when not fixed: full attention
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for melody in row_batches(train, steps):
            logits = model(melody[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), melody[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
