"""A row-by-row LSTM image classifier that keeps its hidden state between calls: each
batch starts from the (detached) final state of the previous batch, which held other,
unrelated images, so an image's prediction depends on what was drawn before it and the
same batch fed twice gives two different answers.

Reported: "lstm前一个batch的最后时刻的hidden_state，作为下一个batch的初始hidden_state？"
(the LSTM's last hidden state of one batch used as the next batch's initial state?) -
https://github.com/HIT-SCIR/ELMoForManyLangs/issues/68 ("the sentences inside a batch are
contiguous, but the batches are shuffled and have nothing to do with each other"; a reply:
"then the same batch fed twice would give a different result each time"). Here the 8x8
digits read as 8 rows of 8 pixels, in shuffled batches. Fix: start every batch from a
zero state (or carry it only across batches that continue the same sequences).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "lstm前一个batch的最后时刻的hidden_state，作为下一个batch的初始hidden_state？"
LINK = "https://github.com/HIT-SCIR/ELMoForManyLangs/issues/68"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 150


class StatefulRowLSTM(nn.Module):
    def __init__(self, carry_state, hidden=32):
        super().__init__()
        self.carry_state = carry_state
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, 10)
        self.state = None

    def forward(self, x):                     # x: (batch, 8 rows, 8 pixels)
        state = self.state if self.carry_state else None
        if state is not None and state[0].shape[1] != x.shape[0]:
            state = None                      # a batch of another size starts afresh
        out, (h, c) = self.lstm(x, state)
        self.state = (h.detach(), c.detach())   # BUG when carried: the next, unrelated
        return self.classifier(out[:, -1])      # batch starts from this batch's state


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = StatefulRowLSTM(carry_state=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x.view(-1, 8, 8), y, steps), **watch)
