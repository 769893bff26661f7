"""Pieces the batch-170 cases (recurrent networks written by hand) share: a character
language model trained by truncated backpropagation through time on the sonnets, the
'adding problem' of the LSTM literature, and a small sequence-reversal task.

TBPTT: the text is cut into STREAMS parallel streams (the word-language-model example's
``batchify``: stream b is one contiguous stretch of the text), read WINDOW characters at a
time; the carried state is detached between windows. The held-out text (the last
HELD_OUT share of the sonnets) is read the same way, one window after another, and scored by
mean next-character cross-entropy (nats).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import characters

STREAMS, WINDOW = 16, 4
HELD_OUT = 0.15


def split_text():
    """(train ids, held-out ids, vocabulary size) of the sonnets, split in reading order."""
    ids, vocab = characters()
    cut = int(len(ids) * (1 - HELD_OUT))
    return ids[:cut], ids[cut:], vocab


def batchify(ids, streams):
    """(length, streams): column b is the b-th contiguous stretch of ``ids``."""
    length = len(ids) // streams
    return ids[:length * streams].view(streams, length).t().contiguous()


def windows(columns, steps=None):
    """(inputs, targets) windows of WINDOW steps, in reading order, (WINDOW, streams) each;
    ``steps``: that many, the text read again from its start as often as needed."""
    starts = list(range(0, len(columns) - 1 - WINDOW + 1, WINDOW))
    done = 0
    while True:
        for start in starts:
            yield start, columns[start:start + WINDOW], columns[start + 1:start + 1 + WINDOW]
            done += 1
            if steps is not None and done == steps:
                return
        if steps is None:
            return


class CharLSTM(nn.Module):
    """Embedding, one LSTM layer (sequence-first), a linear read-out."""

    def __init__(self, vocab, hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        y, state = self.lstm(self.embed(x), state)
        return self.out(y), state


@torch.no_grad()
def held_out_loss(model, ids, carry):
    """Mean next-character cross-entropy over the held-out text, read in windows in one
    stream with the state handed from window to window by ``carry(state) -> state``."""
    model.eval()
    columns = batchify(ids, 1)
    state, total, count = None, 0.0, 0
    for _, x, y in windows(columns):
        logits, state = model(x, state)
        state = carry(state)
        total += nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             y.reshape(-1), reduction="sum").item()
        count += y.numel()
    model.train()
    return total / count


def adding_problem(n, length, rng):
    """The adding problem: (n, length, 2) inputs - a value in [0, 1) and a marker that is 1
    at two steps (one in each half) - and (n,) targets, the sum of the two marked values."""
    values = rng.random((n, length)).astype(np.float32)
    marks = np.zeros((n, length), dtype=np.float32)
    rows = np.arange(n)
    first = rng.integers(0, length // 2, n)
    second = rng.integers(length // 2, length, n)
    marks[rows, first] = 1
    marks[rows, second] = 1
    x = np.stack([values, marks], axis=-1)
    y = values[rows, first] + values[rows, second]
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))


# sequence reversal: tokens 1..10, 0 pads, 11 starts the decoder's input
PAD, BOS, TOKENS = 0, 11, 12
MAX_LENGTH = 9


def reversal_pairs(n, rng):
    """(source, target, lengths): n right-padded sequences of 4..MAX_LENGTH tokens and the
    same sequences reversed (target[i, :L] = source[i, L-1::-1])."""
    lengths = rng.integers(4, MAX_LENGTH + 1, n)
    source = np.zeros((n, MAX_LENGTH), dtype=np.int64)
    target = np.zeros((n, MAX_LENGTH), dtype=np.int64)
    for row, length in enumerate(lengths):
        tokens = rng.integers(1, 11, length)
        source[row, :length] = tokens
        target[row, :length] = tokens[::-1]
    return torch.from_numpy(source), torch.from_numpy(target), torch.from_numpy(lengths)


def first_token_sequences(n, longest, rng):
    """(tokens, labels, lengths): n right-padded sequences of longest//3..longest tokens of
    1..10 (0 pads), each labelled by its first two tokens (10 classes: the pair of the
    first token's, 1-2 .. 9-10, and whether the second is above 5)."""
    lengths = rng.integers(longest // 3, longest + 1, n)
    tokens = np.zeros((n, longest), dtype=np.int64)
    for row, length in enumerate(lengths):
        tokens[row, :length] = rng.integers(1, 11, length)
    labels = (tokens[:, 0] - 1) // 2 + 5 * (tokens[:, 1] > 5)
    return torch.from_numpy(tokens), torch.from_numpy(labels), torch.from_numpy(lengths)


def sine_windows(n, steps, rng, period=16.0, noise=0.1):
    """(windows, next values): n windows of ``steps`` readings of a noisy sine with its own
    amplitude (0.5-1.5) and phase, (n, steps, 1), and each window's next reading, (n,)."""
    amplitude = rng.uniform(0.5, 1.5, (n, 1))
    phase = rng.uniform(0, 2 * np.pi, (n, 1))
    t = np.arange(steps + 1)[None, :]
    series = amplitude * np.sin(2 * np.pi * t / period + phase)
    series = series + noise * rng.standard_normal(series.shape)
    series = series.astype(np.float32)
    return torch.from_numpy(series[:, :steps, None]), torch.from_numpy(series[:, steps])
