"""The PyTorch "Generating Names with a Character-Level RNN" tutorial's network: the new
hidden state is ``i2h(cat(category, input, hidden))`` with no activation, and the output
path (``i2o``, then ``o2o`` over [output, hidden]) has none either - the whole recurrence is
one linear map of the past one-hot characters, with ``LogSoftmax`` the only non-linearity.
It trains, the loss falls and the names look plausible; it cannot learn anything a linear
function of the history cannot.

Reported: "Feedback about NLP From Scratch: Generating Names with a Character-Level RNN" -
https://github.com/pytorch/tutorials/issues/3791 ("there is no nonlinearity in the
recurring part of the RNN, degrading all of the internal updates to a single linear
function"; a second report, #3953, and a fix adding ``tanh`` to the hidden path followed).
Here the tutorial's cell (one-hot characters, category omitted, dropout 0.1, LogSoftmax,
NLLLoss summed over the characters) run over windows of 16 characters of made-up names
(``_char_rnn``: a name's ending depends on its first syllable), batched, Adam 3e-3.
Fix: ``hidden = tanh(i2h(...))`` (and a tanh on the combined output path).
Measured (held-out next-character cross-entropy, nats, 300 steps): 0.972 with the
bug vs 0.956 fixed; seeds + 1000: 0.991 vs 0.977 - small (#3953: "Results are coming relatively
fine though"), since a linear function of the one-hot history already carries
much of the first syllable to the ending.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._char_rnn import LENGTH, held_out_nll, split_text, windows

TITLE = "Feedback about NLP From Scratch: Generating Names with a Character-Level RNN"
LINK = "https://github.com/pytorch/tutorials/issues/3791"
EXPECTED = ("LINEAR_LAYERS_STACKED",)
STEPS = 300


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, fixed):
        super().__init__()
        self.hidden_size = hidden_size
        self.fixed = fixed
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def step(self, input, hidden):
        input_combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        if self.fixed:
            hidden = torch.tanh(hidden)
            output = torch.tanh(output)
        # BUG when not fixed: no activation anywhere in the recurrence
        output = self.o2o(torch.cat((hidden, output), 1))
        return self.softmax(self.dropout(output)), hidden

    def forward(self, ids):
        """(B, T) ids -> (B, T, vocab) log-probabilities, one character at a time."""
        x = nn.functional.one_hot(ids, self.i2h.in_features - self.hidden_size).float()
        hidden = torch.zeros(ids.shape[0], self.hidden_size)
        outputs = []
        for t in range(ids.shape[1]):
            output, hidden = self.step(x[:, t], hidden)
            outputs.append(output)
        return torch.stack(outputs, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, vocab = split_text()
    model = RNN(vocab, 128, vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.NLLLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for w in windows(train, steps):
            output = model(w[:, :-1])
            loss = 0
            for t in range(LENGTH):
                loss = loss + criterion(output[:, t], w[:, t + 1])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss / LENGTH)
    mon.held_out = held_out_nll(model, held)
    return mon
