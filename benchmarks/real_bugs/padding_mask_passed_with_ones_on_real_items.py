"""A transformer sequence classifier that hands nn.TransformerEncoder the padding mask in
the tokenizer's convention - 1 (True) on the real items, 0 on the padding - while
``src_key_padding_mask`` ignores the positions that are True. Every real item may then
attend to the padding only: attention reads nothing but zero vectors and position
embeddings, the items of a sequence never meet, and what is left is a mean of per-item
features (the pooling itself uses the mask right). The loss falls, slowly, to a
classifier that cannot find which item the label is about.

Reported: "TransformerEncoder src_key_padding_mask does not work in eval()" -
https://github.com/pytorch/pytorch/issues/86120 (a reproduction builds the mask as
``[[1, 1, 0, 0]]`` for two real steps followed by two zero padding steps; the linked
forum thread: "model.eval() predicts all the same or nearly same outputs"). Here sequences
of 3 to 7 items padded to 8 (at least one padding step each), each item a handwritten
digit's 64 pixels plus a 0/1 flag set on one item; the label is the flagged item's digit
(``_attn``). Linear(65, 32) plus a learned position embedding, 2 encoder layers
(batch_first=True), the mean over the real items -> Linear(32, 10); cross-entropy, Adam
1e-3, batches of 64, 300 steps; held out: 512 sequences of the other half of the digits,
in eval mode under no_grad.

Fix: ``src_key_padding_mask=~attention_mask`` (True on the padding).

(With True on the real items the mask is not left-aligned, so PyTorch's eval-time
nested-tensor path is not taken here: the harm is the polarity itself, in training and in
evaluation alike.)

Measured (held-out accuracy): 0.32 with the bug, 0.89 fixed; seeds + 1000: 0.37 vs 0.84.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._attn import digits, held_out, sequences

TITLE = "TransformerEncoder src_key_padding_mask does not work in eval()"
LINK = "https://github.com/pytorch/pytorch/issues/86120"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300
WIDTH = 8


def padded(items, lengths):
    """Items padded with one more zero step; the tokenizer-style mask (True = real)."""
    items = F.pad(items, (0, 0, 0, WIDTH - items.shape[1]))
    attention_mask = torch.arange(WIDTH)[None, :] < lengths[:, None]
    return items, attention_mask


class SequenceClassifier(nn.Module):
    def __init__(self, mask_marks_padding, dim=32):
        super().__init__()
        self.mask_marks_padding = mask_marks_padding
        self.embed = nn.Linear(65, dim)
        self.position = nn.Embedding(WIDTH, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(dim, 10)

    def forward(self, items, attention_mask):
        h = self.embed(items) + self.position(torch.arange(items.shape[1]))
        if self.mask_marks_padding:
            h = self.encoder(h, src_key_padding_mask=~attention_mask)
        else:
            h = self.encoder(h, src_key_padding_mask=attention_mask)   # BUG: True = real here
        weights = attention_mask.unsqueeze(-1).float()
        return self.head((h * weights).sum(1) / weights.sum(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x2, y2) = digits()
    items_h, lengths_h, yh = held_out(x2, y2, max_len=WIDTH - 1)
    model = SequenceClassifier(mask_marks_padding=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for items, lengths, labels in sequences(x, y, steps, max_len=WIDTH - 1):
            optimizer.zero_grad()
            loss = loss_fn(model(*padded(items, lengths)), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(*padded(items_h, lengths_h)).argmax(1)
    mon.held_out_accuracy = (predicted == yh).float().mean().item()
    return mon
