"""A session-based next-item recommender trained on session-parallel mini-batches (GRU4Rec):
each row of the batch follows one session, its GRU state carried from step to step, and
when a row's session ends the next session takes the row over, so that row's state must be
zeroed. The loop zeroes it AFTER the step that reads the new session's first item: that
item is read with the previous session's state, and the reset then throws away the state
that held it. Every new session starts one item short, from another session's memory.

Reported: "RNN cell reset done one step too late ..." -
https://github.com/paxcema/KerasGRU4Rec/issues/1 ("the model has to reset the RNN cells
states prior to the fw/bp passes done in the train_on_batch ... However in your code you
are resetting the RNN cells after the train_on_batch"; the author: "You are absolutely
right ... whenever there's a session replacement, the cell will learn that one step with an
inherited (and unwanted) state"). Here sessions of 3 to 6 items walk through 24 items with
a stride of their own (1 to 4): after two items the stride, and so every next item, is
known. Fix: zero the state of the rows whose session starts before the forward pass.

Why watch misses it: the state is carried on purpose (session-parallel batches continue
their sessions from step to step) and handed back through forward's arguments, so the same
batch fed twice gives the same answer and STATE_CARRIED_ACROSS_BATCHES stays silent. What
is wrong is only WHEN rows are zeroed: after the step that read a new session's first item
instead of before it. Which rows start a session is known to the loop's data alone; the
model sees a state with some zero rows either way.
"""
import torch
from torch import nn

TITLE = "RNN cell reset done one step too late ..."
LINK = "https://github.com/paxcema/KerasGRU4Rec/issues/1"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 200
ITEMS, SHORTEST, LONGEST, STRIDES = 24, 3, 6, 4


def session_parallel_batches(steps, rows=32, seed=0):
    """(item (rows,), next item (rows,), starts (rows,) bool) per step: row r follows one
    session until it ends, then a new one; ``starts`` marks the rows on a session's first
    item."""
    g = torch.Generator().manual_seed(seed)

    def new_sessions(count):
        first = torch.randint(0, ITEMS, (count,), generator=g)
        stride = torch.randint(1, STRIDES + 1, (count,), generator=g)
        left = torch.randint(SHORTEST, LONGEST + 1, (count,), generator=g)
        return first, stride, left

    item, stride, left = new_sessions(rows)
    starts = torch.ones(rows, dtype=torch.bool)
    for _ in range(steps):
        following = (item + stride) % ITEMS
        yield item, following, starts
        item, left = following, left - 1
        starts = left <= 1                     # the session has no next item left: replace it
        if starts.any():
            first, new_stride, new_left = new_sessions(int(starts.sum()))
            item, stride, left = item.clone(), stride.clone(), left.clone()
            item[starts], stride[starts], left[starts] = first, new_stride, new_left


class SessionGRU(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(ITEMS, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.scores = nn.Linear(dim, ITEMS)

    def forward(self, item, state):
        state = self.cell(self.embed(item), state)
        return self.scores(state), state


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    model = SessionGRU()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    state = None                               # GRUCell starts from zeros
    with nd.watch(model, optimizer, **watch) as mon:
        for item, following, starts in session_parallel_batches(steps):
            if fixed and state is not None:
                state = state.masked_fill(starts[:, None], 0.0)   # reset, then read
            optimizer.zero_grad()
            logits, state = model(item, state)
            loss = nn.functional.cross_entropy(logits, following)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            state = state.detach()
            if not fixed:
                # BUG: the reset comes after the step that read the new session's first item
                state = state.masked_fill(starts[:, None], 0.0)
    return mon
