"""A first AlphaZero-style set-up on tic-tac-toe that the batch-334 cases share.

Every position reachable in play with the game still open (4,520) is solved once by
minimax: ``value`` (+1 win, 0 draw, -1 loss, for the player to move) and each legal move's
value for that player. What self-play with a search would store is drawn from the solution
with a fixed generator: per position, SIMS search visits spread over the legal moves (good
moves visited most: weights exp(SHARPNESS * move value)) and the game's result for the
player to move. ``split`` keeps TRAIN positions for the replay buffer and holds the rest out.

``encode`` gives a board as the network reads it, from the player to move's view: 18 inputs
(a plane of the mover's marks, a plane of the opponent's). ``Net``: a two-layer trunk with a
policy head (9 logits) and a value head (tanh). ``held_out`` scores a trained net on the
held-out positions: ``policy`` is how often its top legal move (illegal moves masked, as a
search masks them) is a best move; ``value`` how often its value, rounded to -1, 0 or 1, is
the position's true result. ``search_visits`` draws such counts for any open board (the
self-play loops of the cases that play games), ``rows_of`` finds played boards' rows.
"""
import functools

import numpy as np
import torch
from torch import nn

SIMS, SHARPNESS, TRAIN = 32, 2.0, 2600
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def winner(board):
    for a, b, c in LINES:
        if board[a] != 0 and board[a] == board[b] == board[c]:
            return board[a]
    return 0


@functools.lru_cache(maxsize=None)
def _solve(board, mover):
    """(value for ``mover``, {move: value of that move for ``mover``}) of an open board."""
    moves = {}
    for cell in range(9):
        if board[cell] == 0:
            after = board[:cell] + (mover,) + board[cell + 1:]
            if winner(after) == mover:
                moves[cell] = 1
            elif 0 not in after:
                moves[cell] = 0
            else:
                moves[cell] = -_solve(after, -mover)[0]
    return max(moves.values()), moves


@functools.lru_cache(maxsize=None)
def positions():
    """Every open position reachable in play: boards (N, 9) in {1 (X), -1 (O), 0}, the
    player to move (N,), its solved value (N,) and move values (N, 9; NaN where illegal)."""
    seen, order = set(), []

    def visit(board, mover):
        if (board, mover) in seen or winner(board) or 0 not in board:
            return
        seen.add((board, mover))
        order.append((board, mover))
        for cell in range(9):
            if board[cell] == 0:
                visit(board[:cell] + (mover,) + board[cell + 1:], -mover)
    visit((0,) * 9, 1)
    boards = np.array([b for b, _ in order], dtype=np.int64)
    movers = np.array([m for _, m in order], dtype=np.int64)
    values = np.zeros(len(order), dtype=np.float32)
    move_values = np.full((len(order), 9), np.nan, dtype=np.float32)
    for row, (board, mover) in enumerate(order):
        value, moves = _solve(board, mover)
        values[row] = value
        for cell, v in moves.items():
            move_values[row, cell] = v
    return boards, movers, values, move_values


def self_play_records(seed=0):
    """What the replay buffer would hold for every position: boards, movers, the visit
    counts of a SIMS-visit search (N, 9) and the result for the player to move (N,)."""
    boards, movers, values, move_values = positions()
    rng = np.random.default_rng(seed)
    legal = ~np.isnan(move_values)
    weights = np.where(legal, np.exp(SHARPNESS * np.nan_to_num(move_values, nan=0.0)), 0.0)
    weights = weights.astype(np.float64)
    probs = weights / weights.sum(1, keepdims=True)
    counts = np.stack([rng.multinomial(SIMS, p) for p in probs]).astype(np.float32)
    return boards, movers, counts, values.copy()


def split(seed=0):
    """A fixed shuffle of the positions: TRAIN row ids for training, the rest held out."""
    order = np.random.default_rng(seed).permutation(len(positions()[0]))
    return order[:TRAIN], order[TRAIN:]


def encode(boards, movers):
    """From the player to move's view: (N, 18) float32, the mover's marks then the
    opponent's."""
    boards = torch.as_tensor(boards)
    movers = torch.as_tensor(movers).unsqueeze(1)
    own = (boards == movers).float()
    other = (boards == -movers).float()
    return torch.cat([own, other], 1)


def legal_mask(boards):
    return torch.as_tensor(boards) == 0


class Net(nn.Module):
    def __init__(self, inputs=18, hidden=128):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden), nn.ReLU())
        self.policy = nn.Linear(hidden, 9)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.policy(h), torch.tanh(self.value(h)).squeeze(1)


def policy_loss(logits, target):
    """Cross-entropy of the policy head against the search's move probabilities."""
    return -(target * torch.log_softmax(logits, 1)).sum(1).mean()


def held_out(model, rows, encoder=encode, policy_back=None):
    """(policy, value): shares of the held-out rows with a best move on top, and with the
    true result after rounding the value. ``policy_back(logits, movers)``: how the script
    maps the policy head's outputs back onto the board's cells (none: as they are)."""
    boards, movers, values, move_values = positions()
    boards, movers = boards[rows], movers[rows]
    model.eval()
    with torch.no_grad():
        logits, value = model(encoder(boards, movers))
    model.train()
    if policy_back is not None:
        logits = policy_back(logits, torch.as_tensor(movers))
    logits = logits.masked_fill(~legal_mask(boards), float("-inf"))
    top = logits.argmax(1).numpy()
    best = np.nanmax(move_values[rows], 1)
    policy = float(np.mean(move_values[rows][np.arange(len(rows)), top] == best))
    rounded = np.clip(np.round(value.numpy()), -1, 1)
    return policy, float(np.mean(rounded == values[rows]))


def search_visits(board, mover, rng):
    """What a SIMS-visit search would return at an open ``board`` (any sequence of 9 ints)
    for ``mover``: the visit counts over the 9 cells (float32), drawn like the records'."""
    _, moves = _solve(tuple(int(v) for v in board), int(mover))
    weights = np.zeros(9)
    for cell, v in moves.items():
        weights[cell] = np.exp(SHARPNESS * v)
    return rng.multinomial(SIMS, weights / weights.sum()).astype(np.float32)


@functools.lru_cache(maxsize=None)
def _row_index():
    boards, movers, _, _ = positions()
    pairs = zip(boards.tolist(), movers.tolist())
    return {(tuple(b), m): row for row, (b, m) in enumerate(pairs)}


def rows_of(boards, movers):
    """The rows of ``positions()`` holding these open boards with these players to move,
    each once, in first-seen order."""
    index, rows = _row_index(), []
    for board, mover in zip(boards, movers):
        row = index[(tuple(int(v) for v in board), int(mover))]
        if row not in rows:
            rows.append(row)
    return np.array(rows)
