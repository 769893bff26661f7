"""A binary segmentation (0 background, 1 object) copied from an ADE20K config keeps its
``reduce_zero_label=True``: the loader maps label 0 to 255 and subtracts 1 from the rest,
so background becomes the ignored value 255 and the object becomes class 0. The loss,
``ignore_index=255``, now counts one class only - the object, as class 0 - and the model,
whose two outputs never see a background pixel, answers "class 0" everywhere: the whole
picture is predicted as object, at a loss near zero.

Reported: "Binary Segmentation with Segmenter" -
https://github.com/open-mmlab/mmsegmentation/issues/2508 (the reporter, once it worked:
"my main error was to set ``reduce_zero_label=True`` for the binary segmentation task (I
didn't change it from my copy of" the ADE20K config). The same symptom is in
https://github.com/open-mmlab/mmsegmentation/issues/1714 ("it predict the whole picture
... as polyp"). Here a small fully convolutional net segments the ink of the 8x8 digits
with two outputs and cross-entropy (``ignore_index=255``). Fix: ``reduce_zero_label=False``
for data whose 0 is a real class.

Measured (150 steps, 297 held-out digits, pixel accuracy against the true 0/1 masks, the
bug's predictions mapped back by +1 as mmseg does): the bug's 0.39 (nearly every pixel
called object), the fixed twin's 0.998.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Binary Segmentation with Segmenter"
LINK = "https://github.com/open-mmlab/mmsegmentation/issues/2508"
EXPECTED = ("IGNORE_INDEX_LEAVES_ONE_CLASS",)
STEPS = 150
HELD_OUT = 297
INK = 0.3
VOID = 255


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))


def reduce_zero_label(mask):
    """mmseg's LoadAnnotations(reduce_zero_label=True): 0 -> 255, the rest minus 1."""
    mask = mask.clone()
    mask[mask == 0] = VOID
    mask = mask - 1
    mask[mask == VOID - 1] = VOID
    return mask


def loaded(x, steps, reduce):
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        mask = (images[:, 0] > INK).long()          # 0 background, 1 ink
        yield images, (reduce_zero_label(mask) if reduce else mask)   # BUG when reduce


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer,
                        lambda out, target: F.cross_entropy(out, target, ignore_index=VOID),
                        loaded(x[:-HELD_OUT], steps, reduce=not fixed), **watch)
    with torch.no_grad():
        truth = (x[-HELD_OUT:, 0] > INK).long()
        predicted = model(x[-HELD_OUT:]).argmax(1)
        if not fixed:
            predicted = predicted + 1               # mmseg adds the reduced zero back
        predicted = predicted.clamp(max=1)
    mon.pixel_accuracy = round(float((predicted == truth).float().mean()), 3)
    return mon
