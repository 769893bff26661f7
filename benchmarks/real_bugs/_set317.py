"""Small DETR-style set prediction pieces batch 317's cases share: "scenes" of one to three
objects (a class and a 2-D position in the unit square) drawn as Gaussian blobs on a
per-class 8x8 grid, an MLP that reads the flattened grid and answers with a fixed number
of slots (class logits with one extra no-object logit, and a position), a matcher written
by hand around scipy's ``linear_sum_assignment``, and a held-out detection F1.

Each case keeps its own loss and matching code in view (that is where the reports'
mistakes live); only the data, the network and the scoring are here."""
import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

CLASSES = 4          # object kinds
SLOTS = 6            # output slots ("queries")
MAX_OBJECTS = 3
GRID = 8


def scenes(n, rng, first_label=0):
    """``n`` scenes: inputs (n, CLASSES * 64) float32, and per scene a (labels, positions)
    pair of tensors (k,) int64 and (k, 2) float32 with k in 1..3. Labels run from
    ``first_label`` to ``first_label + CLASSES - 1``; the grid channel is the kind."""
    axis = (np.arange(GRID) + 0.5) / GRID
    gy, gx = np.meshgrid(axis, axis, indexing="ij")
    images = np.zeros((n, CLASSES, GRID, GRID), dtype=np.float32)
    targets = []
    for i in range(n):
        k = rng.integers(1, MAX_OBJECTS + 1)
        kinds = rng.integers(0, CLASSES, size=k)
        where = rng.uniform(0.1, 0.9, size=(k, 2))
        for kind, (px, py) in zip(kinds, where):
            images[i, kind] += np.exp(-((gx - px) ** 2 + (gy - py) ** 2) / (2 * 0.08 ** 2))
        targets.append((torch.from_numpy(kinds + first_label).long(),
                        torch.tensor(where, dtype=torch.float32)))
    return torch.from_numpy(images.reshape(n, -1)), targets


class SetNet(torch.nn.Module):
    """The flattened grid to SLOTS slots: (B, SLOTS, logits) class logits and
    (B, SLOTS, 2) positions (a sigmoid keeps them in the unit square)."""

    def __init__(self, logits):
        super().__init__()
        self.logits = logits
        self.body = torch.nn.Sequential(torch.nn.Linear(CLASSES * GRID * GRID, 256),
                                        torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                        torch.nn.ReLU())
        self.head = torch.nn.Linear(256, SLOTS * (logits + 2))

    def forward(self, x):
        out = self.head(self.body(x)).view(len(x), SLOTS, self.logits + 2)
        return out[..., :self.logits], torch.sigmoid(out[..., self.logits:])


def detection_f1(logits, positions, targets, no_object, first_label=0, radius=0.15):
    """Held-out F1 of the detections: a slot is a detection when its argmax is not
    ``no_object``; detections and objects are paired one to one (optimal matching on
    distance), a pair counting when the classes agree and the positions lie within
    ``radius``."""
    hits = found = wanted = 0
    for scene_logits, scene_pos, (labels, where) in zip(logits, positions, targets):
        kinds = scene_logits.argmax(-1)
        keep = kinds != no_object
        kinds, pos = kinds[keep], scene_pos[keep]
        found += len(kinds)
        wanted += len(labels)
        if len(kinds) == 0:
            continue
        dist = torch.cdist(pos, where)
        ok = (dist < radius) & (kinds[:, None] == labels[None, :])
        rows, cols = linear_sum_assignment((dist + 10.0 * (~ok)).numpy())
        hits += int(ok[rows, cols].sum())
    if hits == 0:
        return 0.0
    precision, recall = hits / found, hits / wanted
    return 2 * precision * recall / (precision + recall)
