"""A session-based GRU recommender (GRU4Rec's session-parallel mini-batches: one item per
lane per step, the hidden state carried from step to step and zeroed in the lanes where a
new session starts) whose training loop zeroes those lanes one step too late: the reset
mask arrives with the batch whose inputs are the new sessions' first items, and the loop
applies it AFTER the training step on that batch. The first item of every session is read
on top of the previous session's state, and then the state it produced - the only trace of
the session's first item - is wiped. The model never learns what a session's first item
says about the rest of it. Nothing errors; evaluation, which resets at the right time,
shows worse recommendations.

Reported: "RNN cell reset done one step too late ..." -
https://github.com/paxcema/KerasGRU4Rec/issues/1 (the generator yields the reset mask with
the batch that starts the new sessions, but the states were reset after
``train_on_batch``, so "the current session last step is 'connected' to the next session
first step"; the maintainer agreed, "results will be impacted in a noticeable way", and
moved the reset before the training step). Here sessions whose next item depends on the
session's first item (one of eight 'moods') as well as on the last one. Fix: zero the
starting lanes' state before the forward pass. Evaluation is the same in both runs.

Measured (300 Adam steps, 64 lanes, hit@1 of every next item in 400 held-out sessions,
streamed the same way): seed 0: 0.465 with the bug against 0.590 for the fixed twin;
seeds shifted by 1000: 0.488 against 0.607.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._seqrec import (HIDDEN, ITEMS, LANES, hit_at_1, session_data,
                                          session_parallel)

TITLE = "RNN cell reset done one step too late ..."
LINK = "https://github.com/paxcema/KerasGRU4Rec/issues/1"
EXPECTED = ("STATE_RESET_AFTER_STEP",)
STEPS = 300


class SessionGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.items = nn.Embedding(ITEMS + 1, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, ITEMS + 1)

    def forward(self, item, hidden):
        output, hidden = self.gru(self.items(item)[None], hidden)
        return self.out(output[0]), hidden


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train, test = session_data(rng)
    model = SessionGRU()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    hidden, done = torch.zeros(1, LANES, HIDDEN), 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for item, target, start in session_parallel(train, rng):
                keep = (~start)[None, :, None]
                if fixed:
                    hidden = hidden * keep
                optimizer.zero_grad()
                scores, hidden = model(item, hidden.detach())
                loss = nn.functional.cross_entropy(scores, target)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                if not fixed:      # BUG: the reset comes after the step on the new sessions
                    hidden = hidden * keep
                done += 1
                if done == steps:
                    break
    model.eval()
    mon.held_out_hit_at_1 = hit_at_1(model, session_parallel(test, rng, shuffle=False))
    return mon
