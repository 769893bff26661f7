"""A first char-RNN, moved from a toy task (counting "1 2 3 1 2 3") to real text, keeps the
learning rate that worked on the toy task: on text it is far too high, the loss stays high
and the samples stay noise. No error, no NaN - the loss just "was not going down over time".

Reported: "Day 11: learning about learning rates" -
https://jvns.ca/blog/2020/11/23/day-11--learning-about-learning-rates/ (an RNN that
learned to count to 3 would not learn Shakespeare: "I noticed that my model wasn't learning
anything ... the value of the loss function was not going down over time", traced to the
learning rate: "If you set your learning rate too high, the model won't learn anything").
Here a one-hot ``nn.RNN`` (128 tanh units) on windows of 16 characters of made-up names
(``_char_rnn``), Adam at 0.1 (bug) instead of 0.005 (fixed).
Measured (held-out next-character cross-entropy, nats, 300 steps): 3.31 with the bug
(ln 27 = 3.30: nothing learned) vs 0.93 fixed; seeds + 1000: 2.66 vs 0.94.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._char_rnn import held_out_nll, split_text, windows

TITLE = "Day 11: learning about learning rates"
LINK = "https://jvns.ca/blog/2020/11/23/day-11--learning-about-learning-rates/"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.vocab = vocab
        self.rnn = nn.RNN(vocab, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):
        h, _ = self.rnn(nn.functional.one_hot(ids, self.vocab).float())
        return self.out(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, vocab = split_text()
    model = CharRNN(vocab)
    lr = 0.005 if fixed else 0.1            # BUG when not fixed: the toy task's rate
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for w in windows(train, steps):
            logits = model(w[:, :-1])
            loss = criterion(logits.reshape(-1, vocab), w[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_nll(model, held)
    return mon
