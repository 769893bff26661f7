"""Truncated backpropagation through time on token streams (minigrad cases).

``stream_chunks`` cuts ``batch`` long streams into consecutive chunks of ``length`` tokens:
chunk k+1 continues chunk k, so a recurrent model carries its hidden state from one chunk
to the next, and must cut the graph there (``.detach()``) to keep backward to one chunk.
Each stream is a random walk over the ids modulo ``vocab`` (steps of 1, 2 or 3): partly
predictable, and never the same chunk twice.
"""
import numpy as np

import minigrad as mg
import minigrad.nn as nn


def stream_chunks(steps, batch=8, length=8, vocab=16, seed=0):
    rng = np.random.default_rng(seed)
    walk = np.cumsum(rng.integers(1, 4, size=(batch, steps * length + 1)), axis=1)
    tokens = (rng.integers(0, vocab, size=(batch, 1)) + walk) % vocab
    for k in range(steps):
        chunk = tokens[:, k * length:(k + 1) * length + 1]
        yield mg.tensor(chunk[:, :-1]), mg.tensor(chunk[:, 1:])


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab=16, dim=16, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids, state=None):
        out, state = self.lstm(self.embed(ids), state)
        return self.head(out), state
