"""A multi-task network freezes one head (``requires_grad = False`` on its parameters) and keeps
adding that head's loss to the total, believing a frozen head drops out of backpropagation.
It does not: the gradient still flows THROUGH the frozen head into the shared backbone. Here
the frozen head's labels no longer match the inputs (the images were mosaic-augmented for the
other task, the masks were not), so the backbone is trained to predict masks of other images
- noise - and the task that is actually being trained learns more slowly and worse.

Reported: "[Discussion] Gradient flow" - https://github.com/datvuthanh/HybridNets/issues/34
(mosaic augmentation applied to images and boxes but not to the segmentation labels, "which
produces incorrect segmentation loss but that doesn't matter because we froze segmentation
head anyway, thinking that requires_grad=False makes the segmentation head disappear from
backprop graph. But that is wrong ... the backbone is still affected by segmentation loss";
their fix: set the frozen head's losses to 0). Here a digits classifier and a per-pixel
'ink' mask head over one shared backbone; the mask head is frozen, and its masks belong to
other images of the batch. Fix: leave the frozen head's loss out of the total.

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy 0.88, the fixed
twin's 0.91 (a small harm on this small model: the backbone also serves the noise).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "[Discussion] Gradient flow"
LINK = "https://github.com/datvuthanh/HybridNets/issues/34"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
HELD_OUT = 297


class TwoHeaded(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.cls_head = nn.Linear(64, 10)
        self.seg_head = nn.Linear(64, 64)            # one logit per pixel: ink or not
        for p in self.seg_head.parameters():         # --freeze_seg
            p.requires_grad = False

    def forward(self, x):
        features = self.backbone(x)
        return self.cls_head(features), self.seg_head(features)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = TwoHeaded()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad],
                                lr=0.1, momentum=0.9)
    generator = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            # the masks were not mosaic-augmented with the images: they belong to other images
            masks = (xb > 0.5).float()[torch.randperm(len(xb), generator=generator)]
            optimizer.zero_grad()
            logits, mask_logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            if not fixed:
                loss = loss + F.binary_cross_entropy_with_logits(mask_logits, masks)  # BUG
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:])[0].argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
