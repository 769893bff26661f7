"""A char-RNN's batch generator builds the targets by shifting the inputs one place -
``y[:, :-1], y[:, -1] = x[:, 1:], x[:, 0]`` - so the last target of every window is the
window's FIRST character, not the character that follows the window. One target in
``n_steps`` is wrong; the network learns to predict it (it can count the steps from its
fresh state) and at use its prediction at that position is spoiled.

Reported: "Rnn fix dlnd 988" - https://github.com/udacity/deep-learning/pull/239 ("There
was a bug in the previous implementation where the last character in the target batch was
taken from the first character in the input batch"; merged into the course's char-RNN
notebook). Here a one-hot LSTM (128 units) on windows of 16 characters of made-up names
(``_char_rnn``), Adam 5e-3. Fix: read the window one character longer and take the
targets as the inputs shifted by one (``y = window[:, 1:]``).
Measured (held-out next-character cross-entropy, nats, 300 steps): 1.03 with the bug
vs 0.93 fixed; seeds + 1000: 1.04 vs 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._char_rnn import held_out_nll, split_text, windows

TITLE = "Rnn fix dlnd 988"
LINK = "https://github.com/udacity/deep-learning/pull/239"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.vocab = vocab
        self.lstm = nn.LSTM(vocab, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.lstm(nn.functional.one_hot(ids, self.vocab).float())
        return self.fc(out)


def get_batches(train, steps, fixed):
    for w in windows(train, steps):
        x = w[:, :-1]
        if fixed:
            y = w[:, 1:]
        else:
            y = torch.zeros_like(x)
            y[:, :-1], y[:, -1] = x[:, 1:], x[:, 0]     # BUG: last target wraps to x[:, 0]
        yield x, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, vocab = split_text()
    model = CharRNN(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for x, y in get_batches(train, steps, fixed):
            logits = model(x)
            loss = criterion(logits.reshape(-1, vocab), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5)
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_nll(model, held)
    return mon
