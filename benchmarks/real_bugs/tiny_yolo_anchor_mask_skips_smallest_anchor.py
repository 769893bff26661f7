"""A two-scale ("tiny") YOLOv3 assigns each ground-truth box to the one anchor, of six,
whose shape fits it best, and then writes the box's targets into whichever output scale
lists that anchor in its anchor mask. The masks are [[3, 4, 5], [1, 2, 3]] instead of
[[3, 4, 5], [0, 1, 2]]: anchor 3 is listed twice and anchor 0 - the smallest - nowhere. A box
whose best anchor is 0 gets no target on any scale, so every cell and slot around the
small objects is trained as "no object": the detector learns to ignore small objects,
while the loss falls like any other run.

Reported: "Anchors usage in Tiny YOLOv3" - https://github.com/qqwweee/keras-yolo3/issues/306
(the tiny model's second yolo layer uses mask 1,2,3, so the first anchor is ignored; a user:
"I noticed that my trained model can not detect small objects ... I changed the code to
[0,1,2] and train again, small objects are detected"; the same mask is reported in #315,
#668 and fixed in PRs #503 and #622). Here: noisy 16x16 images with one bright rectangle
(3 to 9 pixels a side), six anchor shapes, a small network with a 4x4 output (stride 4,
anchors 3-5) and an 8x8 output (stride 2, anchors from the mask), YOLOv3's loss
(objectness BCE over every slot, BCE on the sigmoid centre offsets and squared error on the
log sizes of the assigned slots). Fix: the second mask [0, 1, 2].

Measured (300 Adam steps, batch 32, 2,000 training scenes, 500 held out; an object is found
when the highest-scoring slot over both scales scores above keras-yolo3's 0.3 and its
decoded box overlaps the object by IoU > 0.5): seed 0, the small objects (best anchor 0,
17% of the held-out scenes) found 0.09 by the bug against 0.79 by the fixed twin (the
others 0.89 against 0.81; all 0.76 against 0.80); seeds shifted by 1000: 0.05 against 1.00
(others 0.83 against 0.85; all 0.69 against 0.87).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._det159 import batches, iou_matrix, scenes

TITLE = "Anchors usage in Tiny YOLOv3"
LINK = "https://github.com/qqwweee/keras-yolo3/issues/306"
EXPECTED = ("ANCHOR_NEVER_ASSIGNED",)
STEPS = 300
TRAIN, HELD_OUT = 2000, 500
SHAPES = torch.tensor([[4.5, 4.5], [4.0, 8.0], [8.0, 4.0], [6.5, 6.5], [9.0, 7.0], [7.0, 9.0]])
STRIDES = (4, 2)                       # coarse 4x4 output, fine 8x8 output
MASK_BUG = ((3, 4, 5), (1, 2, 3))
MASK_FIXED = ((3, 4, 5), (0, 1, 2))
SCORE = 0.3                            # keras-yolo3's default score threshold


class TinyYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.fine = nn.Conv2d(32, 3 * 5, 1)
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.coarse = nn.Conv2d(32, 3 * 5, 1)
        for head in (self.fine, self.coarse):   # objectness prior ~0.01, as YOLOv5 does
            with torch.no_grad():
                head.bias.view(3, 5)[:, 0] = -4.6

    def forward(self, x):
        features = self.body(x)
        outs = []
        for head, f in ((self.coarse, self.down(features)), (self.fine, features)):
            out = head(f)                              # (B, 15, G, G)
            g = out.shape[-1]
            outs.append(out.view(len(x), 3, 5, g, g).permute(0, 1, 3, 4, 2))  # (B, 3, G, G, 5)
        return outs


def best_anchor(boxes):
    """Index of the anchor shape with the highest IoU with each box, both centred."""
    inter = torch.min(boxes[:, None, 2:], SHAPES[None]).prod(-1)
    union = boxes[:, None, 2:].prod(-1) + SHAPES.prod(-1)[None] - inter
    return (inter / union).argmax(1)


def yolo_targets(boxes, masks):
    """Per scale: objectness (B, 3, G, G) and the assigned slots' centre offsets and log
    sizes (B, 3, G, G, 4), filled only where the box's best anchor is in the scale's mask."""
    best = best_anchor(boxes)
    targets = []
    for stride, mask in zip(STRIDES, masks):
        g = 16 // stride
        obj = torch.zeros(len(boxes), 3, g, g)
        box = torch.zeros(len(boxes), 3, g, g, 4)
        for b in range(len(boxes)):
            if int(best[b]) not in mask:
                continue
            slot = mask.index(int(best[b]))
            cx, cy, w, h = boxes[b].tolist()
            col, row = min(int(cx / stride), g - 1), min(int(cy / stride), g - 1)
            obj[b, slot, row, col] = 1
            box[b, slot, row, col] = torch.tensor(
                [cx / stride - col, cy / stride - row,
                 np.log(w / float(SHAPES[best[b], 0])), np.log(h / float(SHAPES[best[b], 1]))])
        targets.append((obj, box))
    return targets


def yolo_loss(outs, targets):
    loss = 0.0
    for out, (obj, box) in zip(outs, targets):
        loss = loss + F.binary_cross_entropy_with_logits(out[..., 0], obj, reduction="sum")
        kept = obj.bool()
        if kept.any():
            chosen = out[kept]
            loss = loss + F.binary_cross_entropy_with_logits(chosen[:, 1:3], box[kept][:, :2],
                                                             reduction="sum")
            loss = loss + 0.5 * ((chosen[:, 3:] - box[kept][:, 2:]) ** 2).sum()
    return loss / len(obj)


def detections(outs, masks):
    """Each image's highest-scoring slot over both scales: its score and decoded box."""
    scores, found = [], []
    for out, stride, mask in zip(outs, STRIDES, masks):
        b, _, g, _, _ = out.shape
        grid = torch.arange(g).float()
        cx = (torch.sigmoid(out[..., 1]) + grid[None, None, None, :]) * stride
        cy = (torch.sigmoid(out[..., 2]) + grid[None, None, :, None]) * stride
        shapes = SHAPES[list(mask)]
        w = torch.exp(out[..., 3].clamp(max=4)) * shapes[None, :, 0, None, None]
        h = torch.exp(out[..., 4].clamp(max=4)) * shapes[None, :, 1, None, None]
        scores.append(torch.sigmoid(out[..., 0]).flatten(1))
        found.append(torch.stack([cx, cy, w, h], -1).flatten(1, 3))
    scores, found = torch.cat(scores, 1), torch.cat(found, 1)
    top = scores.argmax(1)
    return scores.max(1).values, found[torch.arange(len(found)), top]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, boxes = scenes(TRAIN + HELD_OUT, np.random.default_rng(0))
    masks = MASK_FIXED if fixed else MASK_BUG   # BUG (fixed=False): anchor 0 in no mask
    model = TinyYolo()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps):
            loss = yolo_loss(model(images[index]), yolo_targets(boxes[index], masks))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        score, box = detections(model(images[TRAIN:]), masks)
    truth = boxes[TRAIN:]
    hit = (score > SCORE) & (iou_matrix(box, truth).diagonal() > 0.5)
    small = best_anchor(truth) == 0
    mon.held_out_found_small = round(float(hit[small].float().mean()), 3)
    mon.held_out_found_others = round(float(hit[~small].float().mean()), 3)
    mon.held_out_found = round(float(hit.float().mean()), 3)
    mon.held_out_small_share = round(float(small.float().mean()), 3)
    return mon
