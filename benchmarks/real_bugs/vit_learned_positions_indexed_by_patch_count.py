"""A vision transformer whose learned position table (one row per possible position, the
model's tokens sequence-first as ``(patches, batch, width)``) is read with
``positions[x.shape[0]]`` - an index, not a slice - so instead of rows 0..N-1 it takes the
single row N, and the same vector is added to every patch token of every image. Nothing
breaks (the row broadcasts over the tokens), that row is trained like any other weight,
but no token can say where it sits: the encoder sees a bag of 2x2 patches.

Reported: "ViT and the positional econding" -
https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/133 (the
annotated ViT's learned positional embeddings did ``pe = self.positional_encodings[
x.shape[0]]``, "adding the positional embedding of a specific patch to all patches"; the
fix is the slice ``self.positional_encodings[:x.shape[0]]``, applied by the maintainer, who
re-ran the training stats). Here a 2-layer ViT (width 32, 4 heads, pre-norm, class token)
on the 8x8 digits cut into 16 patches of 2x2 pixels, a 64-row learned table kept
sequence-first as in the report, AdamW 3e-3, batches of 64, 384 digits held out. Fix: the
slice.

Measured (held-out accuracy, 300 steps): seed 0: 0.63 with the bug against 0.93 for the
fixed twin; seeds shifted by 1000: 0.65 against 0.95.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vit174 import ViT, accuracy, digits, train

TITLE = "ViT and the positional econding"
LINK = "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/133"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 300
DIM, MAX_LEN = 32, 64


class LearnedPositions(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.positional_encodings = nn.Parameter(torch.randn(MAX_LEN, 1, DIM) * 0.02)

    def forward(self, x):                         # x: (tokens, batch, width)
        if self.fixed:
            pe = self.positional_encodings[:x.shape[0]]      # rows 0..N-1: one per token
        else:
            pe = self.positional_encodings[x.shape[0]]       # BUG: the one row N, for all
        return x + pe


class IndexedViT(ViT):
    def __init__(self, fixed):
        super().__init__(pos=nn.Parameter(torch.zeros(0)), dim=DIM)
        del self.pos
        self.positions = LearnedPositions(fixed)

    def place(self, x):                           # sequence-first around the table
        return self.positions(x.transpose(0, 1)).transpose(0, 1)


def run(fixed=False, steps=STEPS, **watch):
    seed = 0
    torch.manual_seed(seed)
    x, y, x_test, y_test = digits(seed)
    model = IndexedViT(fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    mon = train(model, optimizer, x, y, steps, seed, watch)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
