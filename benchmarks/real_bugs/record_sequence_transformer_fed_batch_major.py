"""A tabular transformer that embeds each record of a sequence (TabFormer's transactions)
and runs nn.TransformerEncoder over them, written for PyTorch before ``batch_first``
existed: the encoder reads (sequence, batch, features), but the model hands it (batch,
records, features). Attention then runs along the batch axis - at each record position
the sequences of the mini-batch attend to one another - while the records of one sequence
never meet. Every prediction is mixed from the other sequences of its batch; the loss
still falls, since each record's own vector passes through the residual path.

Reported: "bug fix: set the correct ordering of dimensions in the input tensor" -
https://github.com/IBM/TabFormer/pull/14 ("self.transformer_encoder ... expects the batch
size to be in the second dimension of the input tensor, however the current implementation
places the batch size in the first dimension"; the fix transposes before the encoder and
back after it). Here sequences of 6 records, each a handwritten digit's 64 pixels plus a
0/1 flag set on one record; the label is the flagged record's digit (``_attn``).
Linear(65, 32) per record plus a learned position embedding, 2 encoder layers (the default
sequence-first layout), the mean over the records -> Linear(32, 10); cross-entropy, Adam
1e-3, batches of 64, 300 steps; held out: 512 sequences of the other half of the digits,
passed to the model in one batch.

Fix: ``h.transpose(0, 1)`` into the encoder and back out of it (the pull request's fix).

Measured (held-out accuracy): 0.86 with the bug, 0.93 fixed; seeds + 1000: 0.83 vs 0.94.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._attn import digits, held_out, sequences

TITLE = "bug fix: set the correct ordering of dimensions in the input tensor"
LINK = "https://github.com/IBM/TabFormer/pull/14"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300


class RecordTransformer(nn.Module):
    def __init__(self, transpose, records=6, width=65, dim=32):
        super().__init__()
        self.transpose = transpose
        self.embed = nn.Linear(width, dim)
        self.position = nn.Parameter(torch.randn(records, dim) * 0.1)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):                       # x: (batch, records, width)
        h = self.embed(x) + self.position
        if self.transpose:
            h = self.encoder(h.transpose(0, 1)).transpose(0, 1)
        else:
            h = self.encoder(h)                 # BUG: (batch, records, dim) into a seq-first encoder
        return self.head(h.mean(dim=1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        right = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return right


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x2, y2) = digits()
    xh, _, yh = held_out(x2, y2, min_len=6, max_len=6)
    model = RecordTransformer(transpose=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _, yb in sequences(x, y, steps, min_len=6, max_len=6):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
