"""A character language model trained on padded lines with a cross-entropy that does not
skip the padding: a quarter of every batch's targets is the padding id, which the model
learns to predict and which dilutes the loss of the real text.

Reported: "ignore_index defined but not used" -
https://github.com/lucidrains/DALLE-pytorch/issues/57 (the text's padding id 0 is defined
as ignore_index, but the loss is computed with `F.cross_entropy(logits, labels)`; fixed in
the next pull request). Here an LSTM reads the sonnets' verse lines, padded at the end
with id 0. Fix: `F.cross_entropy(..., ignore_index=0)`.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "ignore_index defined but not used"
LINK = "https://github.com/lucidrains/DALLE-pytorch/issues/57"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 120
PAD = 0


class CharLSTM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    lines, vocab = padded_lines()
    model = CharLSTM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    rng = np.random.default_rng(0)
    ignore = PAD if fixed else -100          # BUG: the default, so padding is trained on
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = lines[torch.from_numpy(rng.choice(len(lines), 32, replace=False))]
            optimizer.zero_grad()
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), batch[:, 1:], ignore_index=ignore)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
