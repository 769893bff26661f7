"""A recurrent decoder trained by teacher forcing whose input at each step is the very token
it is asked to output at that step: the input and the target are the same slice of the
sequence, not the target shifted right by one. The decoder only has to copy its input
through, so the training loss plunges towards zero and the teacher-forced accuracy (what the
project also evaluated with) reads near 100%, nothing errors, and the model has learned no
next-token prediction at all: fed the tokens so far, as generation must, it predicts the
token it was just given.

Reported: "The token input to the model decoder at each time step is the same as the output
token" - https://github.com/code-gen/cscg/issues/4 (the reporter found that the decoder's
input token at each time step equals its output token, so the accuracy is very high, while
the input at step t must be the token of step t-1; the maintainer thanked them for spotting
it). Here: a character-level GRU decoder on the sonnets (benchmarks/real_bugs/_future_leaks.py:
the last 15% of the text held out), Adam. Fix: feed ``window[:, :-1]`` and predict
``window[:, 1:]``.

Measured (300 steps, batch 32, windows of 32 characters; next-character accuracy on the
held-out text, each position predicted from the characters before it): seed 0, 0.023 for the
bug against 0.35 for the fixed twin (the bug's teacher-forced "accuracy" on the same held-out
text, fed the way it trained: 1.00); seeds shifted by 1000, 0.023 against 0.35 (again 1.00).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._future_leaks import held_out_windows, sonnet_split, windows

TITLE = "The token input to the model decoder at each time step is the same as the output token"
LINK = "https://github.com/code-gen/cscg/issues/4"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
LENGTH = 32


class CharDecoder(nn.Module):
    def __init__(self, vocab, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.out(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = sonnet_split()
    model = CharDecoder(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in windows(train, steps, 32, LENGTH, seed=0):
            targets = window[:, 1:]
            if fixed:
                inputs = window[:, :-1]            # the token before each target
            else:
                inputs = window[:, 1:]             # BUG: the target token itself
            logits = model(inputs)
            loss = nn.functional.cross_entropy(logits.transpose(1, 2), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        w = held_out_windows(held_out, LENGTH)
        predicted = model(w[:, :-1]).argmax(-1)
        mon.held_out_accuracy = (predicted == w[:, 1:]).float().mean().item()
        mon.held_out_copy_accuracy = (model(w[:, 1:]).argmax(-1) == w[:, 1:]).float().mean().item()
    return mon
