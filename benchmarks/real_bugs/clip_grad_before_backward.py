"""Gradient clipping called before loss.backward(): it clips the gradients that are not
there yet (zero_grad just cleared them), so the update uses the raw gradient, and a
learning rate that relied on clipping blows the model up.

Reported: "Question" - https://github.com/Cranial-XIX/FAMO/issues/4 ("Why should
`clip_grad_norm_` before `loss.backward()`?"; the author: "thanks for catching this bug,
it should be after"). Here a character LSTM (128 units) on 64-character windows of the
sonnets, trained the way PyTorch's word-language-model example trains its LSTM: plain SGD
at a large learning rate (20) held in check by clip_grad_norm_(0.25). Fix: clip between
backward() and step().
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Question (why clip_grad_norm_ before loss.backward()?)"
LINK = "https://github.com/Cranial-XIX/FAMO/issues/4"
EXPECTED = ("LR_TOO_HIGH", "EXPLODING_GRADIENTS")
STEPS = 120
CLIP = 0.25
LENGTH = 64             # characters per window (the example's bptt is 35 words)


class CharLSTM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, 128, batch_first=True)
        self.head = nn.Linear(128, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLSTM(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            optimizer.zero_grad()
            if not fixed:                    # BUG: nothing to clip yet
                nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            loss = F.cross_entropy(model(window[:, :-1]).transpose(1, 2), window[:, 1:])
            loss.backward()
            if fixed:
                nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            optimizer.step()
            mon.step(loss)
    return mon
