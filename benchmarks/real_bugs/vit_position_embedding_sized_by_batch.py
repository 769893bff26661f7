"""A vision transformer whose learned position embedding is created with the batch size as
its first axis and one row, ``nn.Parameter(torch.randn(batch_size, 1, width))``: added to
the (batch, 1 + patches, width) tokens it broadcasts over the token axis, so every patch of
an image gets the same vector - the vector of the batch slot the image landed in. No token
learns where it sits (the encoder sees a bag of 2x2 patches), and what the model computes
for an image depends on its slot in the batch. The sizes only have to agree, which they do
as long as every batch is full.

Reported: "Wrong Positional embedding in project examples/vision_transformer" -
https://github.com/pytorch/examples/issues/1178 (the official PyTorch ViT example built
``self.pos_embedding = nn.Parameter(torch.randn(self.batch_size, 1, self.latent_size))``;
the report: it should be ``torch.randn(1, num_patches + 1, latent_size)``, one row per
token shared by every image). Here a 2-layer ViT (width 32, 4 heads, pre-norm, class token)
on the 8x8 digits cut into 16 patches of 2x2 pixels, AdamW 3e-3, full batches of 64, 384
digits held out (scored in batches of 64, as the example must). Fix: the (1, patches + 1,
width) table.

Measured (held-out accuracy, 300 steps): seed 0: 0.15 with the bug against 0.94 for the
fixed twin; seeds shifted by 1000: 0.11 against 0.97.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vit174 import BATCH_SIZE, ViT, accuracy, digits, train

TITLE = "Wrong Positional embedding in project examples/vision_transformer"
LINK = "https://github.com/pytorch/examples/issues/1178"
EXPECTED = ("POSITIONS_IGNORED", "BATCH_MIXING")
STEPS = 300
DIM, TOKENS = 32, 17


def run(fixed=False, steps=STEPS, **watch):
    seed = 0
    torch.manual_seed(seed)
    x, y, x_test, y_test = digits(seed)
    if fixed:                                     # one row per token, shared by every image
        pos = nn.Parameter(torch.randn(1, TOKENS, DIM))
    else:                                         # BUG: one row per batch slot
        pos = nn.Parameter(torch.randn(BATCH_SIZE, 1, DIM))
    model = ViT(pos=pos, dim=DIM)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    mon = train(model, optimizer, x, y, steps, seed, watch)
    mon.held_out_accuracy = accuracy(model, x_test, y_test, BATCH_SIZE)
    return mon
