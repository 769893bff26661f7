"""An LSTM with "attention" written by hand in a first NLP tutorial: the final hidden state
is the query, its dot products with the LSTM's outputs are the scores, and the scores -
laid out time-major, (seq_len, batch) after a permute - go through
``F.softmax(attn_weights, 1)``: axis 1 is the batch. Each time step's weights sum to one
across the sentences of the batch instead of each sentence's weights summing to one across
its time steps, so a sentence's context vector is scaled by how its scores compare with the
other sentences' and nothing makes its own steps compete. It trains and the loss falls.

Reported: "修复softmax轴数bug" ("fix the softmax axis bug") -
https://github.com/ssw-nlp-study-group/nlp_study/pull/2 (on nlp/lstm_with_attention.py of
a "pytorch NLP入门" (getting started) repository: "axis 0 is the letter-sequence axis,
axis 1 is the batch; the softmax should run along axis 0, so that we get an attention over
the sequence"). Here the tutorial's model (embedding replaced by the digits' pixels:
``nn.LSTM`` run time-major, attention with the last hidden state as query, a linear head)
reads sequences of 6 digits, one flagged, and must name the flagged digit's class
(benchmarks/real_bugs/_attn.py). Fix: ``F.softmax(attn_weights, 0)`` - over the time steps.

Measured (300 steps of 64 sequences, Adam 3e-3; held-out accuracy on 512 sequences): seed
0, 0.145 with the bug against 0.893 for the fixed twin; seeds shifted by 1000, 0.156
against 0.889.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._attn import FEATURES, digits, held_out, sequences

TITLE = "修复softmax轴数bug"
LINK = "https://github.com/ssw-nlp-study-group/nlp_study/pull/2"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300
LENGTH = 6
HIDDEN = 64


class Net(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.lstm = nn.LSTM(FEATURES, HIDDEN)            # time-major: (seq, batch, feature)
        self.fc = nn.Linear(HIDDEN, 10)

    def attn(self, lstm_output, h_t):
        # lstm_output (L, B, H), h_t (B, H)
        h_t = h_t.unsqueeze(0).permute(1, 2, 0)           # (B, H, 1)
        lstm_output = lstm_output.permute(1, 0, 2)        # (B, L, H)
        attn_weights = torch.bmm(lstm_output, h_t)        # (B, L, 1)
        attn_weights = attn_weights.permute(1, 0, 2).squeeze(-1)   # (L, B)
        # BUG (fixed=False): axis 1 of (L, B) is the batch
        attention = F.softmax(attn_weights, 0 if self.fixed else 1)
        out = torch.bmm(lstm_output.transpose(1, 2), attention.unsqueeze(-1).transpose(1, 0))
        return out.squeeze(-1)                            # (B, H)

    def forward(self, x):
        lstm_output, (h_t, _) = self.lstm(x.transpose(0, 1))
        return self.fc(self.attn(lstm_output, h_t[-1]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xt, yt) = digits()
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for items, _, labels in sequences(x, y, steps, min_len=LENGTH, max_len=LENGTH):
            optimizer.zero_grad()
            loss = criterion(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        items, _, labels = held_out(xt, yt, min_len=LENGTH, max_len=LENGTH)
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon
