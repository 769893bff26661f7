"""A sequence classifier called the Hugging Face way (``model(input_ids=..., attention_mask=
..., labels=...)``) whose forward takes the attention mask and never uses it: the real
tokens attend to the padding, so a sentence's prediction changes with how much padding the
batch gave it.

Reported: "[Bug Report] Attention masking is not used by model forward methods" -
https://github.com/TransformerLensOrg/TransformerLens/issues/467 (the attention_mask passed
in is overwritten inside forward, so it has no effect). Here the sonnets' verse lines,
right-padded to the longest, classified by whether they hold a comma. Fix: pass the mask
to attention (key_padding_mask).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "[Bug Report] Attention masking is not used by model forward methods"
LINK = "https://github.com/TransformerLensOrg/TransformerLens/issues/467"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class ForSequenceClassification(nn.Module):
    def __init__(self, vocab, length, use_mask, dim=32):
        super().__init__()
        self.use_mask = use_mask
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(length, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask, labels=None):
        x = self.embed(input_ids) + self.position(torch.arange(input_ids.shape[1]))
        # BUG when not use_mask: the mask is taken and dropped
        padding = attention_mask == 0 if self.use_mask else None
        h = self.encoder(x, src_key_padding_mask=padding)
        keep = attention_mask.unsqueeze(-1).float()
        logits = self.classifier((h * keep).sum(1) / keep.sum(1))   # mean over real tokens
        loss = None if labels is None else F.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    comma = 1 + sorted(set(open_sonnets_chars())).index(",")
    labels = (ids == comma).any(dim=1).long()
    model = ForSequenceClassification(vocab, ids.shape[1], use_mask=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(ids), (32,), generator=g)
            batch = {"input_ids": ids[rows], "attention_mask": (ids[rows] != 0).long(),
                     "labels": labels[rows]}
            optimizer.zero_grad()
            loss = model(**batch)["loss"]
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def open_sonnets_chars():
    """The characters of the verse lines padded_lines() read (its ids are 1 + their rank)."""
    from benchmarks.real_bugs._common import SONNETS
    with open(SONNETS, encoding="utf-8") as handle:
        return "".join(line for line in handle.read().splitlines() if len(line) >= 20)
