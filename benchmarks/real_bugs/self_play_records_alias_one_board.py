"""A first AlphaZero-style self-play loop on tic-tac-toe that plays each game on one numpy
board, changed in place move after move, and appends THAT array to the game's list of
states. Every entry is the same object, so when the game ends the whole list holds its
final board: each game's visit counts and results are all stored against one full (or
won) position, seen from each player's side. The network trains on a few thousand
copies of finished boards with conflicting targets; the loss falls to the noise between
them, and the positions the search will actually ask about were never seen.

Reported: "same state object keeps being added to state_list in
self_play.self_play_and_save" - https://github.com/sanghyunyi/alphago_zero/issues/1
("Otherwise same object keeps being added, and once done, it will be the last state, so
state_list is full of the last state"; fixed). Here 600 self-play games of
``_board_games334`` (moves drawn from a 32-visit search's counts, each position stored
with its counts and the game's result for the player to move), a trunk with policy and
value heads, Adam, batches of 64 from the replay buffer, 300 steps, loss = value MSE +
policy cross-entropy. Scored on the positions of 200 fresh self-play games (stored
correctly), the ones a search guided by the network would ask about.

Fix: append a copy of the board (state.copy()) at every move.

Measured (share of the fresh games' positions whose rounded value is the true result for
the player to move): 0.50 with the bug, 0.63 fixed; seeds + 1000: 0.45 vs 0.67. (Top legal
move a best move: 0.76 vs 0.82; 0.81 vs 0.84.)
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._board_games334 import (Net, encode, held_out, policy_loss,
                                                  rows_of, search_visits, winner)
from benchmarks.real_bugs._common import index_batches

TITLE = ("same state object keeps being added to state_list in "
         "self_play.self_play_and_save")
LINK = "https://github.com/sanghyunyi/alphago_zero/issues/1"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",)
STEPS = 300
GAMES = 600
HELD_GAMES = 200


def play_one_game(rng, fixed):
    board = np.zeros(9, dtype=np.int64)
    states, players, visits = [], [], []
    player = 1
    while True:
        counts = search_visits(board, player, rng)
        states.append(board.copy() if fixed else board)   # BUG: the live board itself
        players.append(player)
        visits.append(counts / counts.sum())
        move = rng.choice(9, p=counts / counts.sum())
        board[move] = player
        won = winner(board)
        if won or not (board == 0).any():
            break
        player = -player
    results = [float(won * p) for p in players]
    return states, players, visits, results


def replay_buffer(fixed):
    rng = np.random.default_rng(0)
    boards, movers, pis, zs = [], [], [], []
    for _ in range(GAMES):
        states, players, visits, results = play_one_game(rng, fixed)
        boards += states
        movers += players
        pis += visits
        zs += results
    x = encode(np.stack(boards), np.array(movers))
    return x, torch.from_numpy(np.stack(pis)), torch.tensor(zs, dtype=torch.float32)


def held_out_rows():
    """The positions a search will ask about: those of HELD_GAMES fresh self-play games
    (played with copies, from their own generator), each once."""
    rng = np.random.default_rng(1)
    boards, movers = [], []
    for _ in range(HELD_GAMES):
        states, players, _, _ = play_one_game(rng, fixed=True)
        boards += states
        movers += players
    return rows_of(boards, movers)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, pi, z = replay_buffer(fixed)
    held = held_out_rows()
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
