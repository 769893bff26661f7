"""A session-based GRU recommender (GRU4Rec in PyTorch, session-parallel mini-batches: one
item per lane per step, the hidden state carried from step to step) whose ``forward``
assigns the GRU's new state to a misspelt name and returns the state it was given. The
loop carries that unchanged state along, so the GRU starts every step from the initial
zeros: the model recommends from the current item alone, as a first-order Markov chain,
and the session's earlier items are lost. Nothing errors; training and evaluation run.

Reported: "Model forward function seems not to update hidden state" -
https://github.com/hungpthanh/GRU4REC-pytorch/issues/1 (the GRU's output state was bound
to ``hdden`` while ``forward`` returned ``hidden``, "or you just want to make
recommendation through 1-step information"; the maintainer: "Yes, it is a typo", fixed).
Here sessions whose next item depends on the session's first item (one of eight 'moods')
as well as on the last one. Fix: return the GRU's new state.

Measured (300 Adam steps, 64 lanes, hit@1 of every next item in 400 held-out
sessions, streamed the same way; with eight moods recall@10 would cover every mood's
candidate): seed 0: 0.295 with the bug against 0.590 for the fixed twin; seeds shifted by
1000: 0.296 against 0.607.

How watch sees it: the GRU's recurrent weights get a gradient of exactly zero on every
recorded step while its input weights learn: RNN_READ_BEFORE_RECURRENCE (the layer acts
as a feed-forward layer on one step's input), with NO_GRADIENT on ``gru.weight_hh_l0``.
EXPECTED first held RECURRENT_STATE_NEVER_PASSED alone (scored "wrong cause" as it came);
RNN_READ_BEFORE_RECURRENCE was added after that scoring, as the existing case of the same
cause (``recurrent_cell_state_never_passed``) accepts it.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._seqrec import (HIDDEN, ITEMS, LANES, hit_at_1, session_data,
                                          session_parallel)

TITLE = "Model forward function seems not to update hidden state"
LINK = "https://github.com/hungpthanh/GRU4REC-pytorch/issues/1"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED", "RNN_READ_BEFORE_RECURRENCE")   # as recurrent_cell_state_never_passed
STEPS = 300


class SessionGRU(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.items = nn.Embedding(ITEMS + 1, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, ITEMS + 1)

    def forward(self, item, hidden):
        output, hdden = self.gru(self.items(item)[None], hidden)
        if self.fixed:
            hidden = hdden
        # BUG when not fixed: the new state went to ``hdden``; the old one is returned
        return self.out(output[0]), hidden


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train, test = session_data(rng)
    model = SessionGRU(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    hidden, done = torch.zeros(1, LANES, HIDDEN), 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for item, target, start in session_parallel(train, rng):
                optimizer.zero_grad()
                scores, hidden = model(item, hidden.detach() * (~start)[None, :, None])
                loss = nn.functional.cross_entropy(scores, target)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    model.eval()
    mon.held_out_hit_at_1 = hit_at_1(model, session_parallel(test, rng, shuffle=False))
    return mon
