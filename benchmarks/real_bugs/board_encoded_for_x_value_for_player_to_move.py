"""An AlphaZero-style tic-tac-toe net that reads the board from X's side every time (a
plane of X's marks, a plane of O's) while its value target is the result for the player
to MOVE and its policy target that player's search visits. The same threat means "win
now" when X is to move and "block now" when O is: with nothing telling it whose turn it is
but the parity of the marks, the network must learn every position twice over, once per
side, and its answers for one side pull against the other's. The loss falls steadily; the
value head stays far worse than a net reading the board from the mover's side.

Reported: "AlphaZero network to estimate the current player's value function" -
https://github.com/google-deepmind/open_spiel/pull/730 ("Fix AlphaZero to expect the
observation from the current player's perspective and correspondingly estimate the value
function from the perspective of the current player"). Here every solved position of
``_board_games334`` (search visit counts, result for the player to move), the training
split in the replay buffer, a trunk with policy and value heads, Adam, batches of 64, 300
steps, loss = value MSE + policy cross-entropy.

Fix: encode each board from the player to move's view (own marks, then the opponent's),
the view the value is signed for.

Measured (held-out share of positions whose rounded value is the true result for the
player to move): 0.55 with the bug, 0.62 fixed; seeds + 1000: 0.55 vs 0.60.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._board_games334 import (Net, encode, held_out, policy_loss,
                                                  self_play_records, split)
from benchmarks.real_bugs._common import index_batches

TITLE = "AlphaZero network to estimate the current player's value function"
LINK = "https://github.com/google-deepmind/open_spiel/pull/730"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


def x_view(boards, movers):
    """BUG: X's marks then O's, whoever is to move."""
    return encode(boards, torch.ones(len(boards), dtype=torch.int64))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    observe = encode if fixed else x_view
    boards, movers, counts, results = self_play_records(seed=0)
    train, held = split(seed=0)
    x = observe(boards[train], movers[train])
    pi = torch.from_numpy(counts[train] / counts[train].sum(1, keepdims=True))
    z = torch.from_numpy(results[train])
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            logits, value = model(x[index])
            loss = F.mse_loss(value, z[index]) + policy_loss(logits, pi[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_best_move, mon.held_out_value = held_out(model, held, encoder=observe)
    return mon
