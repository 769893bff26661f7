"""The labels of a causal language model are shifted by one in the model's forward and
once more by the loss function it hands them to: each position is trained to predict the
token two ahead instead of the next one.

Reported: "GitForCausalLM double-shifts the training loss and leaks targets across batch
rows (regression from #35875)" - https://github.com/huggingface/transformers/issues/47394
("shifts the labels manually and then hands the result to self.loss_function, which shifts
them a second time. The model is trained to predict token t + 2 from position t instead
of t + 1"). Here a character LSTM on the sonnets whose head shifts the labels and then
calls a causal-LM loss that shifts them again. Fix: shift once.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = ("GitForCausalLM double-shifts the training loss and leaks targets across batch rows "
         "(regression from #35875)")
LINK = "https://github.com/huggingface/transformers/issues/47394"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 120


def causal_lm_loss(logits, labels):
    """A library's causal-LM loss: it shifts the labels itself (position t predicts t + 1)."""
    logits, labels = logits[:, :-1], labels[:, 1:]
    return F.cross_entropy(logits.transpose(1, 2), labels)


class CharLM(nn.Module):
    def __init__(self, vocab, shift_in_model):
        super().__init__()
        self.shift_in_model = shift_in_model
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)

    def loss(self, logits, labels):
        if self.shift_in_model:              # BUG: shifted here, and again in the loss
            logits, labels = logits[:, :-1], labels[:, 1:]
        return causal_lm_loss(logits, labels)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLM(vocab, shift_in_model=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps):
            optimizer.zero_grad()
            loss = model.loss(model(window), labels=window)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
