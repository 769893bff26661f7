"""A BERT sentence-pair classifier called positionally, ``model(input_ids, segment_ids)``,
after the library moved ``attention_mask`` to the second position (pytorch_transformers'
forward took ``token_type_ids`` there, transformers' takes ``attention_mask``). The segment
ids - 0 over [CLS] and the text, 1 over the aspect - become the attention mask: every token
attends only to the aspect, and the classifier never reads the text.

Reported: "question about the usage of huggingface BertModel" -
https://github.com/songyouwei/ABSA-PyTorch/issues/137 ("input_ids and attention_mask should
be the first two arguments, but it seems like you have passed input_ids and token_type_ids
for the first two arguments"; the answer: "I forgot the diffrence between
pytorch_transformers and transformers"). Here the pair is a sonnet stretch and an aspect
letter (one of d, l, m, u): "[CLS] text [SEP] letter [SEP]", right-padded, labelled 1
where the letter occurs in the text (45% of the pairs). Harm (seed 0, 200 steps,
2,048 held-out pairs): accuracy 0.62 (the classifier learns little more than the share of
absent letters) against 0.99 called by keyword.
How watch finds it: most random groups of a pair's tokens can be replaced without moving
its output (OUTPUT_READS_FEW_TOKENS); the fixed twin, called ``model(ids, attention_mask=...,
token_type_ids=...)``, is probed with its mask (``monitor/keyword_inputs.bound_inputs``).
Fix: pass by keyword, ``model(input_ids, token_type_ids=segment_ids,
attention_mask=attention_mask)``.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import SONNETS
from benchmarks.real_bugs._text_snippets import bert_style

TITLE = "question about the usage of huggingface BertModel"
LINK = "https://github.com/songyouwei/ABSA-PyTorch/issues/137"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS",)
STEPS = 200
ASPECTS = "dlmu"


class PairClassifier(nn.Module):
    """BERT's calling convention: forward(input_ids, attention_mask, token_type_ids)."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(128, dim)
        self.segment = nn.Embedding(2, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = (self.embed(input_ids) + self.position(torch.arange(input_ids.shape[1]))
             + self.segment(token_type_ids))
        h = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        return self.classifier(h[:, 0])


def pairs(count, seed):
    """(ids, segments, mask, labels, vocab): "[CLS] text [SEP] letter [SEP]" rows padded with
    0 to a common width; [CLS] and [SEP] are the two ids after the characters."""
    text, _, vocab = bert_style(count, seed)
    cls, sep = vocab, vocab + 1
    with open(SONNETS, encoding="utf-8") as handle:
        chars = sorted(set(handle.read()))
    letters = torch.tensor([1 + chars.index(c) for c in ASPECTS])
    g = torch.Generator().manual_seed(seed)
    aspect = letters[torch.randint(len(ASPECTS), (count,), generator=g)]
    lengths = (text != 0).sum(1)
    labels = (text == aspect.unsqueeze(1)).any(1).long()
    width = text.shape[1] + 4
    ids = torch.zeros(count, width, dtype=torch.int64)
    segments = torch.zeros_like(ids)
    for row, n in enumerate(lengths.tolist()):
        ids[row, :n + 4] = torch.cat([torch.tensor([cls]), text[row, :n],
                                      torch.tensor([sep, int(aspect[row]), sep])])
        segments[row, n + 2:n + 4] = 1
    return ids, segments, (ids != 0).long(), labels, vocab + 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, segments, mask, labels, vocab = pairs(4096, seed=0)
    model = PairClassifier(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.arange(step * 32, (step + 1) * 32) % len(ids)
            width = int(mask[rows].sum(1).max())
            xb, sb, mb = ids[rows, :width], segments[rows, :width], mask[rows, :width]
            optimizer.zero_grad()
            if fixed:
                logits = model(xb, attention_mask=mb, token_type_ids=sb)
            else:
                logits = model(xb, sb)       # BUG: the segment ids land in attention_mask
            loss = F.cross_entropy(logits, labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
