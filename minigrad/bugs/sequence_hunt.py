"""Sequence models for the bug hunt: each 8x8 digit read as a sequence of 8 rows.

A row is a time step of 8 pixels, so recurrent layers and attention have something to
carry from step to step; the models classify from the last step. With these (and a
few MLPs built from the smooth activations, a masked layer and a hand-written
log-softmax) every sequence bug of the catalogue has a hunt model on which it shows.
"""
import numpy as np

from .. import nn
from .hunt import CLASSES, HuntModel, cross_entropy, nll_of_log_probabilities


class Rows(nn.Module):
    """(N, 64) pixels -> (N, 8 rows, 8 pixels): one row per time step."""

    def forward(self, x):
        return x.reshape(x.shape[0], 8, 8)


class LastStep(nn.Module):
    """The output of a recurrent layer (or a sequence of vectors) at the last time step."""

    def __init__(self, inner=None):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        out = x if self.inner is None else self.inner(x)
        out = out[0] if isinstance(out, tuple) else out
        return out[:, -1]


class MeanOverSteps(nn.Module):
    """Average the vectors of all time steps (every step's output then reaches the loss)."""

    def forward(self, x):
        return x.mean(axis=1)


class CausalEncoder(nn.Module):
    """A transformer encoder layer whose rows attend only to the rows above them."""

    def __init__(self, width):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(width, 2, 2 * width, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x, is_causal=True)


class MaskedFeatures(nn.Module):
    """Zero a fixed quarter of the features (as padding code does), with masked_fill."""

    def __init__(self, features):
        super().__init__()
        self.mask = np.random.default_rng(2).random(features) < 0.25

    def forward(self, h):
        return h.masked_fill(self.mask, 0.0)


class LogSoftmaxByLogSumExp(nn.Module):
    def forward(self, h):
        return h - h.logsumexp(dim=1, keepdim=True)


def sequence_models():
    return [
        HuntModel("row-lstm", "LSTM reading the digit row by row",
                  lambda: nn.Sequential(Rows(), LastStep(nn.LSTM(8, 24, batch_first=True)),
                                        nn.Linear(24, CLASSES)), cross_entropy, lr=0.5),
        HuntModel("row-gru", "GRU reading the digit row by row",
                  lambda: nn.Sequential(Rows(), LastStep(nn.GRU(8, 24, batch_first=True)),
                                        nn.Linear(24, CLASSES)), cross_entropy, lr=0.3),
        HuntModel("row-transformer", "causal transformer layer over the rows",
                  lambda: nn.Sequential(Rows(), nn.Linear(8, 16), CausalEncoder(16), MeanOverSteps(),
                                        nn.Linear(16, CLASSES)), cross_entropy, lr=0.05),
        HuntModel("smooth-activation-mlp", "MLP with SiLU, ELU(0.4) and Softplus(1.5)",
                  lambda: nn.Sequential(nn.Linear(64, 32), nn.SiLU(), nn.Linear(32, 32),
                                        nn.ELU(0.4), nn.Linear(32, 32), nn.Softplus(1.5),
                                        nn.Linear(32, CLASSES)), cross_entropy),
        HuntModel("masked-features-mlp", "MLP with a quarter of its features masked out",
                  lambda: nn.Sequential(nn.Linear(64, 32), MaskedFeatures(32), nn.Tanh(),
                                        nn.Linear(32, CLASSES)), cross_entropy),
        HuntModel("logsumexp-nll-mlp", "MLP with a log-softmax written with logsumexp",
                  lambda: nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, CLASSES),
                                        LogSoftmaxByLogSumExp()), nll_of_log_probabilities),
    ]
