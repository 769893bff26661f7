"""A GRU character language model whose output layer ends in ``nn.LogSoftmax(dim=1)`` on
(batch, time, vocabulary) outputs: the log-probabilities are normalised over the time
axis, not over the vocabulary. Each position's normaliser then sums over all positions,
the later ones included, so the output at t reads the characters after t (the target
among them), although the GRU itself only reads forward.

Reported: "Cross entropy with sequence log_softmax not (almost) equal to 1" -
https://github.com/pytorch/pytorch/issues/27626 (sequence outputs of shape (batch,
sequence, classes) handed to a loss that applies ``log_softmax(input, 1)``: the
"probabilities" no longer sum to one over the classes). Here the same normalisation over
dim 1, written in the model, on 32 characters of the sonnets with NLL loss. Fix:
``nn.LogSoftmax(dim=-1)``.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import characters, next_character_batches, train_watched

TITLE = "Cross entropy with sequence log_softmax not (almost) equal to 1"
LINK = "https://github.com/pytorch/pytorch/issues/27626"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class CharGRU(nn.Module):
    def __init__(self, vocab, softmax_dim, dim=48):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)
        self.log_softmax = nn.LogSoftmax(dim=softmax_dim)   # BUG when 1: the time axis

    def forward(self, ids):
        hidden, _ = self.gru(self.embed(ids))
        return self.log_softmax(self.head(hidden))


def next_id_nll(log_probs, targets):
    return F.nll_loss(log_probs.reshape(-1, log_probs.shape[-1]), targets.reshape(-1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharGRU(vocab, softmax_dim=-1 if fixed else 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_nll,
                         next_character_batches(ids, steps, LENGTH), **watch)
