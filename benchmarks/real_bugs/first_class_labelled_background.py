"""A detector whose class 0 is reserved for background, trained on annotations numbered from
0: the first real class gets the background's id. Its objects are taught to be "nothing",
the last output column is never a target, and the class is never found, while the loss
falls as usual (background is most of what a detector classifies).

Reported: "changed so that label_idx 0 is never used" -
https://github.com/microsoft/computervision-recipes/pull/315 ("Fixed bug with one class
never being found since the labels need to start from 1 (label 0 is reserved for
background)"; torchvision's Faster R-CNN, num_classes = classes + 1). Here the
classification head of such a detector: each batch holds 48 digit crops and 16 background
crops (faint noise, id 0) in proposal order, scored over 11 columns (background + ten
digits), and the digits are labelled with their digit value (torchvision's sampler keeps up
to 3 background proposals per object; here objects are the majority). Fix: label a digit d
with d + 1.

Measured: the trained net calls 98% of the digit-0 crops background (0% in the fixed
twin), and the loss falls as well as the fixed twin's (0.34 against 0.31).

Why watch misses it: every target is a valid id, the background share is ordinary, the
classes are balanced. The one trace, the last column never a target, is also what a rare
last class or a vocabulary padded to a round size leaves (OUTPUT_WIDER_THAN_CLASSES waits
for a head four times too wide for that reason). Which id means "nothing" is a
convention of the model, not something the run shows.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "changed so that label_idx 0 is never used"
LINK = "https://github.com/microsoft/computervision-recipes/pull/315"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 150
BACKGROUND = 0
CROPS, EMPTY = 48, 16          # object crops and background crops per batch
FAINT = 0.15                   # how bright a background crop's noise gets


def proposals(x, y, steps, fixed, seed=0):
    """Batches of object crops with their class ids and background crops with id 0."""
    generator = torch.Generator().manual_seed(seed)
    for xb, digits in batches(x, y, steps, batch_size=CROPS):
        labels = digits + 1 if fixed else digits          # BUG: digit 0 -> background id
        empty = FAINT * torch.rand(EMPTY, xb.shape[1], generator=generator)
        crops = torch.cat([xb, empty])
        ids = torch.cat([labels, torch.full((EMPTY,), BACKGROUND)])
        order = torch.randperm(len(ids), generator=generator)   # proposals come unsorted
        yield crops[order], ids[order]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(outputs=11)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    return train_watched(model, optimizer, F.cross_entropy, proposals(x, y, steps, fixed),
                         **watch)
