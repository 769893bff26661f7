"""Label maps brought down to the logits' resolution with ``F.interpolate(mode="nearest")``,
which keeps the TOP-LEFT pixel of each block instead of its centre. A segmenter whose
logits sit at a quarter of the input's resolution is trained against labels taken 1.5
input pixels up and to the left of where each logit looks, so it learns to draw every
object shifted by that much; at test time its logits are upsampled back over the full
grid and every mask is offset. The loss looks healthy (the shift is a consistent one the
net can learn), nothing errors.

Reported: "Misaligned segmentation masks" -
https://github.com/kazuto1011/deeplab-pytorch/issues/51 (the maintainer found that
downsampling the label maps with PyTorch's nearest interpolation in main.py misaligns
them with the image, and compared the 1/16 downsampling of several frameworks; the fix
replaced it with Pillow's nearest resize, which samples each block's centre). Here a
U-Net-style encoder with stride-4 logits (benchmarks/real_bugs/_seg154.py) segments 32x32
noisy scenes of filled and outlined rectangles; logits are upsampled bilinearly for
scoring. Fix: sample each 4x4 block's centre pixel (as Pillow's nearest does), not its
corner.

Measured (300 steps, batch 16, 256 held-out scenes; mean IoU of the two object classes at
full resolution): seed 0, 0.323 for the bug against 0.390 for the fixed twin; seeds
shifted by 1000, 0.317 against 0.418 (stride-4 logits cap both runs well below a
full-resolution U-Net).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._seg154 import UNet, batches, mean_iou, scenes

TITLE = "Misaligned segmentation masks"
LINK = "https://github.com/kazuto1011/deeplab-pytorch/issues/51"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
CLASSES = 3
SIZE = 32
STRIDE = 4


def downsampled(labels, fixed):
    """(N, SIZE / STRIDE, SIZE / STRIDE) label ids at the logits' grid."""
    if fixed:                                   # each block's centre, as Pillow samples
        return labels[:, STRIDE // 2::STRIDE, STRIDE // 2::STRIDE]
    small = F.interpolate(labels[:, None].float(), size=SIZE // STRIDE, mode="nearest")
    return small[:, 0].long()                   # BUG: each block's top-left pixel


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    shape = dict(size=SIZE, objects=(2, 4), sides=(5, 12))
    images, labels = scenes(1024, seed=0, **shape)
    held_images, held_labels = scenes(256, seed=1, **shape)
    targets = downsampled(labels, fixed)
    model = UNet(out=CLASSES, stride=STRIDE)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, targets, steps):
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits = F.interpolate(model(held_images), size=SIZE, mode="bilinear",
                               align_corners=False)
        mon.held_out_mean_iou = mean_iou(logits.argmax(1), held_labels, CLASSES)
    return mon
