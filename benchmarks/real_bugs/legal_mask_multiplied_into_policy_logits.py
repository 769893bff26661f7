"""An AlphaZero-style tic-tac-toe net that takes the legal moves as a second input and
"masks" its policy by multiplying the logits with the 0/1 mask before the softmax. A
logit times 0 is 0, not minus infinity: every occupied cell keeps a share exp(0) of the
softmax, and whenever the free cells' logits fall below 0 an occupied cell is the
network's top move. The search's targets give occupied cells nothing, but with their
logits pinned at 0 the only way down for them is to push every legal logit up, and the
policy head spends the run doing that; the loss falls, and the masked policy the search
is handed still puts its weight on occupied cells and on the wrong free ones.

Reported: "Policy out softmax with illegal moves" -
https://github.com/mokemokechicken/reversi-alpha-zero/issues/22 (a Multiply of the policy
logits with a legal-move mask input proposed; the reply: "Is not equal
softmax((0, -0.5, 0.5))[1:2] and softmax((-0.5,0.5))"). Here every solved position of
``_board_games334`` (search visit counts, result for the player to move) with its legal
moves, the training split in the replay buffer, a trunk with policy and value heads,
Adam, batches of 64, 300 steps, loss = value MSE + policy cross-entropy.

Fix: fill the illegal logits with a large negative number (masked_fill), so the softmax
runs over the legal moves only.

Measured (held-out share of positions whose top move under the model's own masked policy
is a best move): 0.84 with the bug, 0.91 fixed; seeds + 1000: 0.82 vs 0.90.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._board_games334 import (Net, encode, legal_mask, policy_loss,
                                                  positions, self_play_records, split)
from benchmarks.real_bugs._common import index_batches

TITLE = "Policy out softmax with illegal moves"
LINK = "https://github.com/mokemokechicken/reversi-alpha-zero/issues/22"
EXPECTED = ("DEAD_RELU",)
STEPS = 300


class MaskedNet(Net):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, x, legal):
        logits, value = super().forward(x)
        if self.fixed:
            return logits.masked_fill(~legal, -1e9), value
        return logits * legal.float(), value          # BUG: illegal logits become 0


def held_out_best_move(model, rows):
    boards, movers, _, move_values = positions()
    model.eval()
    with torch.no_grad():
        logits, _ = model(encode(boards[rows], movers[rows]), legal_mask(boards[rows]))
    model.train()
    top = logits.argmax(1).numpy()
    best = np.nanmax(move_values[rows], 1)
    return float(np.mean(move_values[rows][np.arange(len(rows)), top] == best))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    boards, movers, counts, results = self_play_records(seed=0)
    train, held = split(seed=0)
    x = encode(boards[train], movers[train])
    legal = legal_mask(boards[train])
    pi = torch.from_numpy(counts[train] / counts[train].sum(1, keepdims=True))
    z = torch.from_numpy(results[train])
    model = MaskedNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            logits, value = model(x[index], legal[index])
            loss = F.mse_loss(value, z[index]) + policy_loss(logits, pi[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_best_move = held_out_best_move(model, held)
    return mon
