"""An AlphaZero-style tic-tac-toe net whose value targets are signed for the wrong player.
When a self-play game ends, each stored position gets the game's result "from the player's
view" - but the code takes the player who made the move INTO the position (the one a step
behind in the record), not the player to move, the one the network reads the board for
and whose value the search asks it. Every target has its sign reversed (draws stay 0):
the value head learns, with a nicely falling loss, that a won position is lost, and a
search guided by it would steer towards losing.

Reported: "fix reward sign in compute_target_value()" -
https://github.com/werner-duvaud/muzero-general/pull/108 ("Because player[i-1] got
reward[i] in GameHistory, the reward sign is reversed in current implementation", for
two-player games such as tic-tac-toe; merged). Here every solved position of
``_board_games334`` (search visit counts, the game's winner), the training split in the
replay buffer, encoded from the player to move's view, a trunk with policy and value
heads, Adam, batches of 64, 300 steps, loss = value MSE + policy cross-entropy.

Fix: sign the result for the player to move at each position (winner * to_play[i]).

Measured (held-out share of positions whose rounded value is the true result for the
player to move): 0.21 with the bug, 0.62 fixed; seeds + 1000: 0.20 vs 0.60.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._board_games334 import (Net, encode, held_out, policy_loss,
                                                  self_play_records, split)
from benchmarks.real_bugs._common import index_batches

TITLE = "fix reward sign in compute_target_value()"
LINK = "https://github.com/werner-duvaud/muzero-general/pull/108"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


def value_targets(results, to_play, fixed):
    """The game's winner (+1 X, -1 O, 0 draw) signed for each stored position."""
    winner = results * to_play                     # the record's outcome, X's side
    moved_into = -to_play                          # who played the move before position i
    return winner * (to_play if fixed else moved_into)   # BUG: player[i - 1]'s view


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    boards, movers, counts, results = self_play_records(seed=0)
    train, held = split(seed=0)
    x = encode(boards[train], movers[train])
    pi = torch.from_numpy(counts[train] / counts[train].sum(1, keepdims=True))
    z = torch.from_numpy(value_targets(results[train], movers[train], fixed)).float()
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
    mon.held_out_best_move, mon.held_out_value = held_out(model, held)
    return mon
