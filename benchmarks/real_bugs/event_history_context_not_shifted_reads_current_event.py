"""A recurrent temporal point process (a GRU reads each event's log inter-event time and
its hidden state conditions the distribution of the next one) forgets to shift the
context: the GRU output after event i - which has already read event i - conditions event
i itself, instead of the state after event i-1 (with a learned initial state in front).
The likelihood climbs fast, since each time is read off its own input; asked for the next
event after a history, the model has learned nothing about what comes next.

Reported: in "How could I get the predicted results?" -
https://github.com/shchur/ifl-tpp/issues/6 the author writes "The slicing for context
embedding was off-by-one, which means that the model was peeking into the future" (fixed
in a later commit). Here 1024 sequences of 20 events whose standardised log inter-event
times follow an AR(2) process (generated with a fixed numpy seed), a Gaussian head on the
log-times (a log-normal inter-event distribution), Adam, 200 steps of 32 sequences.

Fix: shift the contexts by one event: [initial state, h_1 .. h_{N-1}] condition events
1..N.

Measured (held-out MSE of the predicted mean log-time of the event after each 19-event
history): 0.56 with the bug, 0.34 fixed; seeds + 1000: 0.56 vs 0.30.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches

TITLE = "How could I get the predicted results?"
LINK = "https://github.com/shchur/ifl-tpp/issues/6"
EXPECTED = ("FUTURE_LEAK", "TARGETS_IN_INPUTS")
STEPS = 200
EVENTS = 20


def log_times(count, seed=0, held_out=False):
    """(count, EVENTS) standardised log inter-event times, an AR(2) process per row."""
    rng = np.random.default_rng(seed + (7919 if held_out else 0))
    x = np.zeros((count, EVENTS + 20))
    x[:, :2] = rng.normal(0, 1, (count, 2))
    for t in range(2, EVENTS + 20):
        x[:, t] = 1.2 * x[:, t - 1] - 0.6 * x[:, t - 2] + rng.normal(0, 0.4, count)
    x = x[:, 20:]
    return torch.from_numpy(((x - x.mean()) / x.std()).astype(np.float32))


class RecurrentTPP(nn.Module):
    def __init__(self, shifted, context=32):
        super().__init__()
        self.shifted = shifted
        self.context_init = nn.Parameter(torch.zeros(context))
        self.rnn = nn.GRU(1, context, batch_first=True)
        self.head = nn.Linear(context, 2)                    # mean, log std of log-time

    def contexts(self, times):                               # times: (batch, events)
        h, _ = self.rnn(times[..., None])
        if not self.shifted:
            return h                                         # BUG: h_i has read event i
        init = self.context_init.expand(len(times), 1, -1)
        return torch.cat([init, h[:, :-1]], dim=1)

    def forward(self, times):
        mean, log_std = self.head(self.contexts(times)).unbind(-1)
        return mean, log_std.clamp(-5, 3)

    @torch.no_grad()
    def next_mean(self, history):
        """Mean log-time of the event after ``history``: the state after its last event."""
        h, _ = self.rnn(history[..., None])
        return self.head(h[:, -1])[:, 0]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    times = log_times(1024, seed=0)
    held = log_times(256, seed=0, held_out=True)
    model = RecurrentTPP(shifted=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(times), steps, seed=0):
            x = times[index]
            mean, log_std = model(x)
            nll = torch.distributions.Normal(mean, log_std.exp()).log_prob(x).neg()
            loss = nll.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    pred = model.next_mean(held[:, :-1])
    mon.held_out_next_mse = torch.mean((pred - held[:, -1]) ** 2).item()
    return mon
