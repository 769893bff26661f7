"""A [CLS]-pooled sentence classifier fed left-padded batches (the padding side a
decoder-style tokenizer uses) that pools the hidden state at index 0, as right padding
would allow: with left padding index 0 is a pad for every line shorter than the batch's
longest, and the [CLS] token sits at the first real position. The pad's hidden state is
masked out of every other token's attention, so nothing the encoder learns at the [CLS]
reaches the classifier; the pad's own attention over the line is all the head gets.

Reported: "Pooling::Cls should use first real token (attention mask), not index 0" -
https://github.com/StarlightSearch/EmbedAnything/issues/213 ("`Pooling::Cls` ... always
takes the hidden state at sequence index 0 ... For padded batches, CLS pooling should use
the first non-padding token (via attention_mask), not a fixed index 0. This matters when
sequences are left-padded"). Here the sonnets' verse lines, left-padded with id 0 behind
a [CLS] id, labelled by whether they end in a comma, under a 1-layer encoder with a
key-padding mask. Fix: pool at the first real position (``attention_mask.argmax(1)``).
Measured (150 steps, seed 0; mean of the last 20 training losses, first 10 in brackets): bug
0.63 (0.72), fixed 0.31 (0.70).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "Pooling::Cls should use first real token (attention mask), not index 0"
LINK = "https://github.com/StarlightSearch/EmbedAnything/issues/213"
EXPECTED = ("PADDING_LEAK",)
STEPS = 150


class ClsClassifier(nn.Module):
    def __init__(self, vocab, first_real, dim=32):
        super().__init__()
        self.dim, self.first_real = dim, first_real
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids) * math.sqrt(self.dim)
        x = x + self.position(torch.arange(input_ids.shape[1]))
        hidden = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        if self.first_real:
            cls = attention_mask.argmax(1)
        else:
            cls = torch.zeros(len(input_ids), dtype=torch.long)   # BUG: a pad when left-padded
        return self.classifier(hidden[torch.arange(len(input_ids)), cls])


def left_padded_with_cls(ids, cls_id):
    """Each line moved to the right end of its row, a [CLS] id before its first character."""
    lengths = (ids != 0).sum(1)
    out = torch.zeros(len(ids), ids.shape[1] + 1, dtype=torch.long)
    for row, n in enumerate(lengths.tolist()):
        out[row, -n - 1] = cls_id
        out[row, -n:] = ids[row, :n]
    return out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    ids = left_padded_with_cls(ids, cls_id=vocab)
    model = ClsClassifier(vocab + 1, first_real=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(ids), (32,), generator=g)
            batch = ids[rows]
            optimizer.zero_grad()
            logits = model(input_ids=batch, attention_mask=(batch != 0).long())
            loss = F.cross_entropy(logits, labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
