"""A bidirectional-LSTM text classifier that classifies from lstm_out[:, -1], "the last
output": for a bidirectional LSTM the second half of that vector is the BACKWARD
direction at the last position, which has read one token (a padding token for every
review shorter than the batch), while the backward direction's summary of the whole
review sits at lstm_out[:, 0]. Half the features the classifier reads carry no review.

Reported: "Bi-LSTM acc doesn't improve over 65%" -
https://discuss.pytorch.org/t/bi-lstm-acc-doesnt-improve-over-65/145062 (a 3-layer
bidirectional LSTM whose lstm_out goes to the linear layers; the reply: "In case of a
Bi-LSTM the last step of the forward pass is in lstm_out[:,-1] while the last step of the
backward pass is in lstm_out[:,0]"). Here synthetic reviews (64-word vocabulary,
end-padded to the longest, 40), embedding 32, a 2-layer bidirectional LSTM 32 with
dropout, Linear(64, 16), ReLU, Linear(16, 1), sigmoid, BCELoss, Adam 3e-3.
Fix: classify from cat(lstm_out[:, -1, :H], lstm_out[:, 0, H:]), the last step of each
direction.

Measured harm (held-out accuracy, 400 reviews, STEPS steps): 0.77 vs 0.92 at seed 0;
seeds + 1000: 0.745 vs 0.935.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_sentiment import VOCAB, accuracy, minibatches, split

TITLE = "Bi-LSTM acc doesn't improve over 65%"
LINK = "https://discuss.pytorch.org/t/bi-lstm-acc-doesnt-improve-over-65/145062"
EXPECTED = ("RNN_READ_BEFORE_RECURRENCE",)
STEPS = 300
HELD_OUT = {}


class RnnBiLSTM(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed, self.dim = fixed, dim
        self.emb = nn.Embedding(VOCAB, dim)
        self.lstm1 = nn.LSTM(dim, dim, num_layers=2, bidirectional=True, dropout=0.2,
                             batch_first=True)
        self.dropout = nn.Dropout(0.3)
        self.lin1 = nn.Linear(dim * 2, dim // 2)
        self.lin2 = nn.Linear(dim // 2, 1)

    def forward(self, x):
        lstm_out, _ = self.lstm1(self.emb(x))
        if self.fixed:
            last = torch.cat([lstm_out[:, -1, :self.dim], lstm_out[:, 0, self.dim:]], 1)
        else:
            last = lstm_out[:, -1]            # BUG: backward half has read one token
        out = torch.relu(self.lin1(self.dropout(last)))
        return torch.sigmoid(self.lin2(out)).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, _, labels), (test_ids, _, test_labels) = split()
    model = RnnBiLSTM(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[rows]), labels[rows].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    HELD_OUT["accuracy"] = accuracy(model, test_ids, test_labels)
    return mon
