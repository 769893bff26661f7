"""A character LSTM language model trained on windows drawn at random places in the text,
whose LSTM keeps its (detached) state from one minibatch to the next: every window starts
from the state the previous, unrelated window ended in, as if it continued it. The model
is trained to predict the first characters of a window from a context that is not there.

Reported: "Reset state and add epochs in Char RNN example" -
https://github.com/FluxML/model-zoo/pull/320 ("the LSTM states were not reset between
minibatches or epochs ... This PR redefines the loss to properly reset the model between
minibatches"; merged). Flux's ``Recur`` keeps its state until ``reset!``; here the same
with a PyTorch LSTM that remembers its last state. The sonnets in windows of 32
characters. Measured (seed 0, 200 steps of Adam 5e-3, next-character loss over the last 20 steps):
1.911 with the bug, 1.895 fixed - a small cost on the training loss; the larger one is at
use, where a window's first predictions depend on whatever was read before it.
Fix: start every window from a zero state (``reset`` before each minibatch), or carry the
state only across windows that continue each other.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Reset state and add epochs in Char RNN example"
LINK = "https://github.com/FluxML/model-zoo/pull/320"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 200
LENGTH = 32


class StatefulCharLSTM(nn.Module):
    def __init__(self, vocab, reset_each_batch, hidden=64):
        super().__init__()
        self.reset_each_batch = reset_each_batch
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)
        self.state = None

    def forward(self, ids):
        if self.reset_each_batch or (self.state is not None
                                     and self.state[0].shape[1] != ids.shape[0]):
            self.state = None
        out, (h, c) = self.lstm(self.embed(ids), self.state)
        self.state = (h.detach(), c.detach())   # BUG unless reset: the next, unrelated
        return self.head(out)                   # window starts from this one's end


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = StatefulCharLSTM(vocab, reset_each_batch=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    data = next_character_batches(ids, steps, LENGTH)
    return train_watched(model, optimizer, next_id_loss, data, **watch)
