"""A language-model head computes its loss against labels it was told would be shifted
inside, but never shifts them: with `labels = input_ids`, each position is trained to
output the very token it just read, and the loss falls fast toward 0.

Reported: "TransfoXLLMHead doesn't shift labels internally when called for loss" -
https://github.com/huggingface/transformers/issues/3711 ("computes the NLLLoss of the
outputs directly against the labels, rather than against the shifted labels like the
documentation indicates"). Here a character LSTM on the sonnets with the documented call
`labels = input_ids`. Fix: shift inside the head (logits[:, :-1] against labels[:, 1:]).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "TransfoXLLMHead doesn't shift labels internally when called for loss"
LINK = "https://github.com/huggingface/transformers/issues/3711"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 120


class CharLM(nn.Module):
    def __init__(self, vocab, shift):
        super().__init__()
        self.shift = shift
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)

    def loss(self, logits, labels):
        if self.shift:                       # position t predicts token t + 1
            logits, labels = logits[:, :-1], labels[:, 1:]
        return F.cross_entropy(logits.transpose(1, 2), labels)   # BUG: unshifted


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLM(vocab, shift=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps):
            optimizer.zero_grad()
            loss = model.loss(model(window), labels=window)     # labels = input_ids
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
