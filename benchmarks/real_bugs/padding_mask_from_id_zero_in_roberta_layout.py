"""A padding mask computed as ``input_ids != 0`` on RoBERTa-style ids, where 0 is the start
token <s> and padding is 1: the mask hides <s> and keeps every pad. The encoder attends to
the padding and the mean pooling averages it in, so a text's prediction changes with the
padding its batch gave it.

Reported: "Figure out how to handle masking for RoBERTa" -
https://github.com/allenai/allennlp/issues/3359 ("the RoBERTa folks chose to use 0 for the
[CLS] token instead of for padding, which breaks a bunch of assumptions that we make in our
code"; the proposed fix: ``input_mask = (input_ids != self.pad_id)`` with the model's own
pad id). Here the sonnet stretches in RoBERTa's id layout, labelled by whether more than a
tenth of their characters are the letter e, read by a 2-layer encoder and mean-pooled over
the mask. Harm (seed 0, 300 steps, 2,048 held-out stretches): accuracy 0.93 padded to each
batch's longest, 0.95 with 16 more pads and 0.80 with 40 more (the fixed twin: 0.97 at
every padding).
Fix: ``mask = input_ids != pad_token_id`` (1 here).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._text_snippets import ROBERTA_PAD, batches, roberta_style

TITLE = "Figure out how to handle masking for RoBERTa"
LINK = "https://github.com/allenai/allennlp/issues/3359"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


class MaskedMeanEncoder(nn.Module):
    def __init__(self, vocab, pad_id, dim=32):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab, dim, padding_idx=ROBERTA_PAD)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids):
        mask = input_ids != self.pad_id      # BUG when pad_id is 0: that is <s>, not padding
        x = self.embed(input_ids) + self.position(torch.arange(input_ids.shape[1]))
        h = self.encoder(x, src_key_padding_mask=~mask)
        weights = mask.unsqueeze(-1).float()
        return self.classifier((h * weights).sum(1) / weights.sum(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, labels, vocab = roberta_style(4096, seed=0)
    model = MaskedMeanEncoder(vocab, pad_id=ROBERTA_PAD if fixed else 0)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy,
                         batches(ids, labels, steps, pad_id=ROBERTA_PAD), **watch)
