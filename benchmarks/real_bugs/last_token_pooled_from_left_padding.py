"""A left-padded batch (the padding side a decoder-only tokenizer uses) classified at the
"last real token", found as ``attention_mask.sum(1) - 1``: that index is the last real
token only with right padding. With left padding it points into the line (or, for a line
shorter than its padding, at a pad), so the GRU's state read there has not seen the end
of the line, and for short lines it has seen only padding.

Reported: "[Bug] ShadowPEFT sequence classification pools the wrong token with left
padding" - https://github.com/huggingface/peft/issues/3620 ("it derives the index as
`attention_mask.sum(dim=1) - 1` ... Both are incorrect for these left-padded rows. The
last non-padding position is 3 in each row"). Here the sonnets' verse lines, left-padded
with id 0, labelled by whether they end in a comma. Fix: the rightmost real position
(the last one, with left padding).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = ("[Bug] ShadowPEFT sequence classification pools the wrong token with left padding")
LINK = "https://github.com/huggingface/peft/issues/3620"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class LastTokenClassifier(nn.Module):
    def __init__(self, vocab, rightmost, dim=32):
        super().__init__()
        self.rightmost = rightmost
        self.embed = nn.Embedding(vocab, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        hidden, _ = self.gru(self.embed(input_ids))
        positions = torch.arange(input_ids.shape[1])
        if self.rightmost:
            last = (positions * attention_mask).argmax(1)
        else:
            last = attention_mask.sum(1) - 1  # BUG: right padding assumed
        return self.classifier(hidden[torch.arange(len(input_ids)), last])


def left_padded(ids):
    """The right-padded lines moved to the right end of their rows (padding first)."""
    lengths = (ids != 0).sum(1)
    moved = torch.zeros_like(ids)
    for row, n in enumerate(lengths.tolist()):
        moved[row, ids.shape[1] - n:] = ids[row, :n]
    return moved


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    ids = left_padded(ids)
    model = LastTokenClassifier(vocab, rightmost=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(ids), (32,), generator=g)
            batch = ids[rows]
            optimizer.zero_grad()
            logits = model(input_ids=batch, attention_mask=(batch != 0).long())
            loss = nn.functional.cross_entropy(logits, labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
