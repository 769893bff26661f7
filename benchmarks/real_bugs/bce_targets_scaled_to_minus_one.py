"""Binary targets rescaled to [-1, 1] by the augmentation that normalises the images go into
BCEWithLogitsLoss, which needs targets in [0, 1]: for a target of -1 the loss is
2*logit + softplus(-logit), unbounded below, so the model pushes those logits to minus
infinity and the loss falls through zero without end.

Reported: "Negative number occur in 'Loss' ..." -
https://github.com/bigmb/Unet-Segmentation-Pytorch-Nest-of-Unets/issues/18 ("negative
number occur because of the bce_withlogitcs is negative ... Because I have do the augment
to mask, which cause mask'value to [-1, 1]. bce's target should be [0, 1]"). Here the
digits 0-4 against 5-9, with the 0/1 labels put through the same (x - 0.5) / 0.5 as the
inputs. Fix: keep the targets in {0, 1} (normalise the image, not the mask).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, binary, mlp, train_watched

TITLE = "Negative number occur in 'Loss' ..."
LINK = "https://github.com/bigmb/Unet-Segmentation-Pytorch-Nest-of-Unets/issues/18"
EXPECTED = ("TARGETS_OUT_OF_RANGE",)
STEPS = 150


def squeezed_bce(logits, targets):
    return nn.functional.binary_cross_entropy_with_logits(logits.squeeze(1), targets)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    if not fixed:
        y = (y - 0.5) / 0.5          # BUG: the mask normalised like an image, {-1, 1}
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, squeezed_bce, batches(x, y, steps), **watch)
