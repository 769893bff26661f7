"""A character language model built on a bidirectional LSTM: the backward direction has
read the characters after position t, so predicting character t + 1 is a look-up and the
training loss falls far below what any model can reach on the past alone.

Reported: "Adding a bidirectional neural network" -
https://github.com/sherjilozair/char-rnn-tensorflow/pull/64 ("I had quite good perplexity
during training, but the next character prediction was not good at all"; the author: "the
RNN has *seen* the future while predicting the next character"). Here a character LSTM on
the sonnets. Fix: a unidirectional LSTM.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Adding a bidirectional neural network"
LINK = "https://github.com/sherjilozair/char-rnn-tensorflow/pull/64"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class CharLSTM(nn.Module):
    def __init__(self, vocab, bidirectional, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        # BUG when bidirectional: the backward direction reads the characters to predict
        self.lstm = nn.LSTM(32, hidden, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLSTM(vocab, bidirectional=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    data = next_character_batches(ids, steps, LENGTH)
    return train_watched(model, optimizer, next_id_loss, data, **watch)
