"""Tiny minigrad models whose gradient runs through one sequence-model primitive each
(attention, LSTM and GRU cells, where/masked_fill, logsumexp, smooth activations), for
the gradient-check and locate tests of the sequence bugs of the catalogue."""
import numpy as np

import minigrad as mg
import minigrad.nn as mnn

SEQUENCE_OPS = ("scaled_dot_product_attention", "lstm_cell", "gru_cell", "silu", "softplus",
                "elu", "where", "logsumexp")


class _Lambda(mnn.Module):
    def __init__(self, fn, param_shape=None, seed=0):
        super().__init__()
        self.fn = fn
        if param_shape is not None:
            rng = np.random.default_rng(seed)
            self.p = mnn.Parameter(rng.uniform(0.5, 1.5, size=param_shape).astype(np.float32))

    def forward(self, x):
        return self.fn(x, getattr(self, "p", None))


class _CausalEncoder(mnn.Module):
    """A transformer encoder layer that attends causally (scaled_dot_product_attention)."""

    def __init__(self, width):
        super().__init__()
        self.layer = mnn.TransformerEncoderLayer(width, 2, 12, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x, is_causal=True)


class _LastOutputs(mnn.Module):
    """A recurrent layer whose every output feeds the head (so every step's gradient counts)."""

    def __init__(self, recurrent):
        super().__init__()
        self.rnn = recurrent

    def forward(self, x):
        return self.rnn(x)[0]


def _head(middle, length=4, width=8, classes=3):
    return mnn.Sequential(middle, mnn.Flatten(), mnn.Linear(length * width, classes))


def sequence_model_for(op, rng, x, y):
    """(model, inputs, targets, loss_fn) for ``op``; x, y: the usual (6, 5) MLP data."""
    ce = mnn.CrossEntropyLoss()
    sequences = mg.tensor(rng.standard_normal((3, 4, 5)).astype(np.float32))
    labels = mg.tensor(rng.integers(0, 3, 3))
    if op == "scaled_dot_product_attention":
        return (_head(mnn.Sequential(mnn.Linear(5, 8), _CausalEncoder(8))), sequences, labels,
                ce)
    if op in ("lstm_cell", "gru_cell"):
        kind = mnn.LSTM if op == "lstm_cell" else mnn.GRU
        return _head(_LastOutputs(kind(5, 8, batch_first=True))), sequences, labels, ce
    hidden = mnn.Linear(5, 7)
    if op in ("silu", "softplus", "elu"):
        act = {"silu": mnn.SiLU(), "softplus": mnn.Softplus(beta=1.5), "elu": mnn.ELU(0.4)}[op]
        return mnn.Sequential(hidden, act, mnn.Linear(7, 3)), x, y, ce
    if op == "where":
        mask = np.random.default_rng(1).random((x.shape[0], 7)) < 0.4
        padded = _Lambda(lambda h, p: (h * p).masked_fill(mask, 0.0).tanh(), (7,))
        return mnn.Sequential(hidden, padded, mnn.Linear(7, 3)), x, y, ce
    if op == "logsumexp":
        log_softmax = _Lambda(lambda h, p: h - h.logsumexp(dim=1, keepdim=True))
        return mnn.Sequential(hidden, mnn.Tanh(), mnn.Linear(7, 3), log_softmax), x, y, \
            mnn.NLLLoss()
    raise KeyError(op)
