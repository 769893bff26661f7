"""Binary segmentation masks stored as 0 and 255, trained with a cross-entropy whose
``ignore_index`` is 255 (the void label of VOC and Cityscapes, the default of many
segmentation configs): every foreground pixel is ignored, the loss sees background only,
and the model learns to answer "background" everywhere.

Reported: "ignore_label for one-class Semantic Segmentation" -
https://github.com/IDEA-Research/MaskDINO/issues/119 ("I had binary masks (1 for class and
0 for background) and then did the pre-processing transformation ... and my values became 0
and 255, but the model is ignoring the 255 value ... and I am getting very low performance
results"). Here a small fully convolutional net segments the ink of the 8x8 digits, the
ink marked 255. Fix: map the masks to class ids (255 -> 1) before the loss.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "ignore_label for one-class Semantic Segmentation"
LINK = "https://github.com/IDEA-Research/MaskDINO/issues/119"
EXPECTED = ("TARGETS_ALL_ONE_CLASS", "IGNORE_INDEX_LEAVES_ONE_CLASS")
STEPS = 150
VOID = 255


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))


def masked(x, steps, as_class_ids):
    """(image, mask) batches; the mask marks ink 255 (as stored) or 1 (as class ids)."""
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        masks = (images[:, 0] > 0.5).long() * VOID
        if as_class_ids:
            masks = masks // VOID                  # the fix: 255 -> class 1
        yield images, masks                        # BUG when not fixed: 255 is ignored


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(ignore_index=VOID),
                         masked(x, steps, as_class_ids=fixed), **watch)
