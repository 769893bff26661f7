"""An AlphaZero-style tic-tac-toe net whose replay buffer is doubled with the board's
mirror image (the game is symmetric left to right), but the mirrored board keeps the
ORIGINAL policy target: the visit counts still point at the unmirrored cells. Half the
buffer now teaches the policy head to play the mirror image of the good move (a corner
where the search chose the opposite corner, the wrong side of a blocked line), and for the
network the two copies of a position disagree; the loss still falls, the value head
(whose target needs no mirroring) learns fine, and the policy learns a blur of each good
move and its reflection.

Reported: "connect4 symmetries" - https://github.com/suragnair/alpha-zero-general/issues/69
("in getSymmetries for connect4, shouldn't the vector pi also be reversed along with the
board?"; the maintainers: "Yep, definitely a bug"). Here the same symmetry helper on
tic-tac-toe (the left-right mirror, connect-4's own symmetry): every solved position of
``_board_games334`` (search visit counts and the result for the player to move), the
training split stored with its mirror in the buffer, a trunk with policy and value heads,
Adam, batches of 64, 300 steps, loss = value MSE + policy cross-entropy.

Fix: mirror the policy target with the board (pi[MIRROR]), as the fixed helper does.

Measured (held-out share of positions whose top legal move is a best move): 0.75 with
the bug, 0.90 fixed; seeds + 1000: 0.74 vs 0.88. (The value head, untouched by the bug:
0.64 vs 0.61; 0.66 vs 0.64.)
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._board_games334 import (Net, encode, held_out, policy_loss,
                                                  self_play_records, split)
from benchmarks.real_bugs._common import index_batches

TITLE = "connect4 symmetries"
LINK = "https://github.com/suragnair/alpha-zero-general/issues/69"
EXPECTED = ("LABELS_MISALIGNED", "CONFLICTING_LABELS_ON_IDENTICAL_INPUTS")
STEPS = 300
MIRROR = np.array([2, 1, 0, 5, 4, 3, 8, 7, 6])         # cell r * 3 + c -> r * 3 + 2 - c


def replay_buffer(fixed):
    boards, movers, counts, results = self_play_records(seed=0)
    train, _ = split(seed=0)
    pi = counts[train] / counts[train].sum(1, keepdims=True)
    mirrored_pi = pi[:, MIRROR] if fixed else pi          # BUG: the board alone is mirrored
    x = torch.cat([encode(boards[train], movers[train]),
                   encode(boards[train][:, MIRROR], movers[train])])
    p = torch.from_numpy(np.concatenate([pi, mirrored_pi]))
    z = torch.from_numpy(np.concatenate([results[train], results[train]]))
    return x, p, z


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, p, z = replay_buffer(fixed)
    _, held = split(seed=0)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            logits, value = model(x[index])
            loss = F.mse_loss(value, z[index]) + policy_loss(logits, p[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_best_move, mon.held_out_value = held_out(model, held)
    return mon
