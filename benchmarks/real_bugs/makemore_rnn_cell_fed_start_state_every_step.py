"""makemore's hand-written RNN: every step's cell is handed ``hprev``, which is set to the
learned start state before the loop and never moved on to the cell's output - so each
character is predicted from itself and the start state alone, a bigram model dressed as an
RNN. The loss falls (the bigram part learns) and nothing crashes.

Reported: "Fix bug in RNN where hprev always referred to start." -
https://github.com/karpathy/makemore/pull/3 ("Change so that `hprev` refers to output of
previous cell"; with and without the fix compared against the bigram baseline; merged by
the author: "Yes of course, thank you!"). Here the same RNN (embedding, a tanh cell over
[x_t, h_prev], a linear head, a learned start state) on windows of 16 characters of
made-up names (``_char_rnn``: a name's ending depends on its first syllable), AdamW 5e-3.
Fix: ``hprev = ht`` after each step.
Measured (held-out next-character cross-entropy, nats, 300 steps): 1.52 with the bug vs 0.94
fixed (a bigram's floor vs the families' endings learned); seeds + 1000: 1.55 vs 0.95.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._char_rnn import held_out_nll, split_text, windows

TITLE = "Fix bug in RNN where hprev always referred to start."
LINK = "https://github.com/karpathy/makemore/pull/3"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 300


class RNNCell(nn.Module):
    def __init__(self, n_embd, n_embd2):
        super().__init__()
        self.xh_to_h = nn.Linear(n_embd + n_embd2, n_embd2)

    def forward(self, xt, hprev):
        return torch.tanh(self.xh_to_h(torch.cat([xt, hprev], dim=1)))


class RNN(nn.Module):
    def __init__(self, vocab, fixed, n_embd=32, n_embd2=96):
        super().__init__()
        self.fixed = fixed
        self.start = nn.Parameter(torch.zeros(1, n_embd2))
        self.wte = nn.Embedding(vocab, n_embd)
        self.cell = RNNCell(n_embd, n_embd2)
        self.lm_head = nn.Linear(n_embd2, vocab)

    def forward(self, idx):
        b, t = idx.shape
        emb = self.wte(idx)
        hprev = self.start.expand((b, -1))
        hiddens = []
        for i in range(t):
            ht = self.cell(emb[:, i, :], hprev)
            if self.fixed:
                hprev = ht                  # BUG when not fixed: hprev stays the start state
            hiddens.append(ht)
        return self.lm_head(torch.stack(hiddens, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, vocab = split_text()
    model = RNN(vocab, fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for w in windows(train, steps):
            logits = model(w[:, :-1])
            loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), w[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_nll(model, held)
    return mon
