"""A first pointer network that learns to sort lists of six numbers, written without the
mask on the positions it has already pointed at: at every decoding step the attention
scores all six inputs, the ones already emitted included. Teacher forcing keeps the
training loss falling, but the network must learn from data alone never to point twice,
and at test time (greedy decoding on its own choices) it repeats numbers and skips others,
so whole lists come out wrong far more often than with the mask.

Reported: "Question on Masking" - https://github.com/Guillem96/pointer-nn-pytorch/issues/1
("your implementation does not mask element already picked at previous steps, i.e. the
attention should be masked for elements already chosen"). Here the ``_pointer318``
pointer network (LSTM encoder, LSTM-cell decoder fed the value pointed at last, additive
attention scores as the output) on 4000 random lists of six numbers in [0, 1), teacher
forced on the argsort, cross-entropy over the six scores at each step, Adam 3e-3,
batches of 64, 300 steps.

Fix: fill the scores of the positions already chosen with -inf (during training and
greedy decoding) before the softmax / cross-entropy.

Measured (held-out lists sorted exactly, greedy decoding, 1000 lists): 0.746 with the bug,
0.933 fixed; seeds + 1000: 0.720 vs 0.932.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._pointer318 import (LENGTH, PointerNet, exact_and_position_accuracy,
                                              gather_rows, lists)

TITLE = "Question on Masking"
LINK = "https://github.com/Guillem96/pointer-nn-pytorch/issues/1"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


def decode(model, x, order=None, mask_visited=True):
    """Teacher forced when ``order`` is given (returns the per-step scores), else greedy."""
    e, enc, state = model.encode(x)
    keys = model.w1(enc)
    inp = model.start.expand(len(x), -1)
    visited = torch.zeros(x.shape, dtype=torch.bool)
    all_scores, picks = [], []
    for t in range(LENGTH):
        u, state = model.scores(enc, keys, state, inp)
        if mask_visited:
            u = u.masked_fill(visited, float("-inf"))
        pick = order[:, t] if order is not None else u.argmax(1)
        all_scores.append(u)
        picks.append(pick)
        visited = visited.clone()
        visited[torch.arange(len(x)), pick] = True
        inp = gather_rows(e, pick)
    return torch.stack(all_scores, 1), torch.stack(picks, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, order), (xh, oh) = lists(seed=0)
    model = PointerNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            # BUG: no mask on the positions already pointed at (fixed: mask_visited=True)
            scores, _ = decode(model, x[index], order[index], mask_visited=fixed)
            loss = F.cross_entropy(scores.reshape(-1, LENGTH), order[index].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        _, pred = decode(model, xh, mask_visited=fixed)
    mon.held_out_exact, mon.held_out_position_accuracy = exact_and_position_accuracy(pred, oh)
    return mon
