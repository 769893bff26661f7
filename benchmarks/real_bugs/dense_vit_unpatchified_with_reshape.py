"""A dense-prediction vision transformer whose per-patch outputs are put back into an image
with one ``reshape``: the head gives each patch token its p x p pixels' class scores,
(B, patches, p * p, classes), and ``.reshape(B, H, W, classes)`` lays them out in memory
order - the first row of the output image is patch 0's pixels followed by patch 1's, not
row 0 of patches 0 to w - 1. Every pixel's scores come from a token of another place, and
the loss grades them against the label there: the model has to learn to predict far-away
pixels through attention, and the map it paints is torn.

Reported: "Spatial Structure Destroyed in TSViT Output due to incorrect .reshape()" -
https://github.com/michaeltrs/DeepSatModels/issues/22 ("Before the buggy line, x has the
shape (B, num_patches, patch_area, C) ... PyTorch's .reshape() works by flattening the tensor
into a 1D C-contiguous array and folding it into the new shape (B, 128, 128, C)"; the patch
grid and the pixels inside a patch have to be un-folded with a permute). Here a 2-layer ViT
segments the 8x8 digits (ink pixels labelled with the digit, the rest background: 11
classes) from 16 patches of 2x2. Fix: ``x.reshape(B, h, w, p, p, C).permute(0, 1, 3, 2, 4,
5).reshape(B, H, W, C)``.

Measured (seed 0, 200 steps, 384 held-out digits): per-pixel accuracy on the ink pixels
0.48 against 0.79 for the fixed twin (0.81 against 0.93 over all pixels).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._vision import encoder, patches

TITLE = "Spatial Structure Destroyed in TSViT Output due to incorrect .reshape()"
LINK = "https://github.com/michaeltrs/DeepSatModels/issues/22"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 200
HELD_OUT = 384
PATCH = 2
SIDE = 8
CLASSES = 11                     # the ten digits, and 10 for background


def pixel_labels(images, digits):
    """(N, 8, 8) labels: the digit on its ink (intensity above one half), 10 elsewhere."""
    ink = images[:, 0] > 0.5
    return torch.where(ink, digits[:, None, None], torch.full_like(ink, 10, dtype=torch.long))


class DenseViT(nn.Module):
    def __init__(self, fixed, dim=32, tokens=16):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Linear(PATCH * PATCH, dim)
        self.position = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.encoder = encoder(dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, PATCH * PATCH * CLASSES)

    def forward(self, images):
        b, grid = len(images), SIDE // PATCH
        tokens = self.encoder(self.embed(patches(images, PATCH)) + self.position)
        scores = self.head(self.norm(tokens)).reshape(b, grid * grid, PATCH * PATCH, CLASSES)
        if self.fixed:
            scores = scores.reshape(b, grid, grid, PATCH, PATCH, CLASSES)
            scores = scores.permute(0, 1, 3, 2, 4, 5).reshape(b, SIDE, SIDE, CLASSES)
        else:
            scores = scores.reshape(b, SIDE, SIDE, CLASSES)   # BUG: patches laid out in
        return scores.permute(0, 3, 1, 2)                     # memory order, not the grid


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification(images=True)
    y = pixel_labels(x, digits)
    model = DenseViT(fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess, truth = model(x[-HELD_OUT:]).argmax(1), y[-HELD_OUT:]
        ink = truth != 10
        mon.accuracy = round(float((guess == truth).float().mean()), 3)
        mon.ink_accuracy = round(float((guess[ink] == truth[ink]).float().mean()), 3)
    return mon
