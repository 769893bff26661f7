"""A character-level LSTM language model trained by truncated backpropagation through time
on text read in order - 16 parallel streams, 4 characters at a time - that starts EVERY
window from a zero state. Truncated BPTT cuts the gradient at the window's edge but should
hand the (detached) state on: the next window continues the same stretch of text. Zeroed,
each window's first characters are predicted from almost no context, and the model never
learns to use more than the few characters inside its window. Training looks normal (the
loss falls as fast, to about the same level), nothing errors; the held-out text, read the
way the model was trained, is predicted worse.

Reported: "Preserve recurrent hidden state across training examples" -
https://github.com/lmjohns3/theanets/issues/132 (theanets started every training example
from the zero initial state, "a stronger assumption than truncated BPTT, which just clips
the gradients after a fixed timespan. Here, not only are the gradients clipped, but the
hidden states are zeroed"; the same model got training/validation cross-entropy 0.5/10
against torch-rnn's 0.09/0.7, torch-rnn carrying the state across batches through the text
and resetting it only at an epoch's start). Here the sonnets
(benchmarks/real_bugs/_rnn170.py): the first 85% batchified into 16 streams and read in
windows of 4 characters, an embedding, one LSTM layer of 96 units, a linear read-out, Adam
3e-3, gradient norm clipped at 1. Fix: hand the detached (h, c) of one window to the next,
zero only at the start of each pass over the text.

Measured (held-out cross-entropy in nats per character on the last 15% of the sonnets,
read in one stream in windows of 4, each model handing its state on as it was trained
to): seed 0, 2.35 for the bug against 2.16 for the fixed twin; seeds shifted by 1000, 2.34
against 2.17.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn170 import (STREAMS, CharLSTM, batchify, held_out_loss,
                                          split_text, windows)

TITLE = "Preserve recurrent hidden state across training examples"
LINK = "https://github.com/lmjohns3/theanets/issues/132"
EXPECTED = ("STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS",)
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_text()
    model = CharLSTM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def carry(state):
        if fixed:
            return tuple(s.detach() for s in state)      # truncate the gradient, keep state
        return None                                      # BUG: every window starts at zero

    state = None
    with nd.watch(model, optimizer, **watch) as mon:
        for start, x, y in windows(batchify(train, STREAMS), steps):
            if start == 0:
                state = None                             # a new pass over the text
            logits, state = model(x, state)
            state = carry(state)
            loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_cross_entropy = held_out_loss(model, held_out, carry)
    return mon
