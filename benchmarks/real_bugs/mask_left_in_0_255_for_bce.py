"""Images divided by 255 but their binary masks left as 0 and 255, trained with a binary
cross-entropy: a target of 255 is no probability, the loss (255 log p + (1 - 255)
log(1 - p)) has no minimum, turns negative and falls without bound as the ink logits grow.

Reported: "normalization code for image data in mask directory does not work" -
https://github.com/hlamba28/UNET-TGS/issues/8 ("when normalizing image data by dividing all
images by 255.0, it does not work for images in mask directory. So when I fit the model, it
gives me negative values for binary cross_entropy error"; a second user: "I'm facing the
same issue"). Here a small fully convolutional net segments the ink of the 8x8 digits
with ``BCEWithLogitsLoss`` on masks stored 0/255. Fix: divide the masks by 255 as well.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "normalization code for image data in mask directory does not work"
LINK = "https://github.com/hlamba28/UNET-TGS/issues/8"
EXPECTED = ("TARGETS_OUT_OF_RANGE",)
STEPS = 150


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))


def masked(x, steps, scaled):
    """(image in [0, 1], mask) batches; the mask stored 0/255 and divided by 255 when
    ``scaled``."""
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        masks = (images > 0.5).float() * 255
        if scaled:
            masks = masks / 255                    # the fix
        yield images, masks                        # BUG when not scaled: targets 0/255


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.BCEWithLogitsLoss(),
                         masked(x, steps, scaled=fixed), **watch)
