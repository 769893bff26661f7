"""Small synthetic medical images the batch-218 cases share (patient-level splits, intensity
normalisation, 3-D volumes).

``patient_slices``: 2-D MRI-like slices, several per patient; each patient has an anatomy of
its own (a smooth texture far stronger than the diagnosis) and one diagnosis, shown by a faint
blob at a place that depends on the class. ``ct_slices``: 16x16 CT slices in Hounsfield units
(air, a soft-tissue body, a bone rim, a small lesion a few HU above soft tissue) and the lesion
mask. ``mri_slices``: 16x16 MRI slices on an arbitrary scanner scale (tissue a few hundred
units, a tumour brighter) and its mask. ``rod_volumes``: 3-D volumes (z, y, x) with an
elongated structure along one of the three axes (the class). Every generator draws from
``np.random.default_rng(seed)``.
"""
import numpy as np
import torch
from torch import nn

SIZE = 16


def _smooth(rng, count, size=SIZE, passes=3):
    """``count`` smooth random fields (count, size, size), unit standard deviation."""
    field = rng.normal(size=(count, size, size))
    for _ in range(passes):
        field = (field + np.roll(field, 1, 1) + np.roll(field, -1, 1)
                 + np.roll(field, 1, 2) + np.roll(field, -1, 2)) / 5
    return field / field.std(axis=(1, 2), keepdims=True)


def _blob(center, size=SIZE, radius=2.0):
    rows, cols = np.mgrid[:size, :size]
    return np.exp(-((rows - center[0]) ** 2 + (cols - center[1]) ** 2) / (2 * radius ** 2))


CLASS_CENTERS = ((4, 4), (4, 11), (11, 7))      # where each diagnosis shows (rows, cols)


def patient_slices(patients_per_class, slices, classes=3, signal=1.5, seed=0):
    """(x (N, 1, 16, 16) float32, y (N,) int64, patient (N,) int64): ``slices`` slices of each
    patient, each slice the patient's anatomy (plus a slice-to-slice change) and the class's
    faint blob, moved by a pixel or so, in noise."""
    rng = np.random.default_rng(seed)
    n = patients_per_class * classes
    anatomy = _smooth(rng, n)
    xs, ys, ps = [], [], []
    for p in range(n):
        c = p % classes
        change = _smooth(rng, slices)
        for s in range(slices):
            jitter = rng.integers(-1, 2, size=2)
            center = np.asarray(CLASS_CENTERS[c]) + jitter
            image = (anatomy[p] + 0.3 * change[s] + signal * _blob(center)
                     + 0.3 * rng.normal(size=(SIZE, SIZE)))
            xs.append(image)
            ys.append(c)
            ps.append(p)
    x = torch.tensor(np.stack(xs)[:, None], dtype=torch.float32)
    return x, torch.tensor(ys), torch.tensor(ps)


def ct_slices(count, lesion_hu=20.0, noise_hu=5.0, seed=0):
    """(hu (N, 16, 16) float32 Hounsfield units, mask (N, 1, 16, 16) float32): air around a
    round soft-tissue body (30-50 HU), a bone rim (600-1800 HU, the brightest value varies
    from slice to slice), and in most slices a lesion ``lesion_hu`` above the tissue."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[:SIZE, :SIZE]
    hus, masks = [], []
    for _ in range(count):
        radius = rng.uniform(6.0, 7.5)
        dist = np.hypot(rows - 7.5, cols - 7.5)
        body = dist < radius
        rim = body & (dist > radius - 1.2)
        image = np.full((SIZE, SIZE), -1000.0)
        image[body] = rng.uniform(30, 50)
        image[rim] = rng.uniform(600, 1800)
        mask = np.zeros((SIZE, SIZE))
        if rng.random() < 0.8:
            center = rng.uniform(4.5, 10.5, size=2)
            r = rng.uniform(2.0, 3.5)
            mask = ((np.hypot(rows - center[0], cols - center[1]) < r) & body & ~rim)
            mask = mask.astype(float)
            image += lesion_hu * mask
        image += noise_hu * rng.normal(size=(SIZE, SIZE))
        hus.append(image)
        masks.append(mask)
    return (torch.tensor(np.stack(hus), dtype=torch.float32),
            torch.tensor(np.stack(masks)[:, None], dtype=torch.float32))


def mri_slices(count, contrast=1.35, seed=0):
    """(signal (N, 16, 16) float32 on the scanner's arbitrary scale, mask (N, 1, 16, 16)):
    background 0, brain tissue at a per-scan gain (300-900 units, with a bias field), a
    tumour ``contrast`` times brighter than the tissue around it."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[:SIZE, :SIZE]
    images, masks = [], []
    for bias in _smooth(rng, count):
        gain = rng.uniform(300, 900)
        brain = np.hypot(rows - 7.5, cols - 7.5) < rng.uniform(6.0, 7.5)
        center = rng.uniform(4.5, 10.5, size=2)
        tumour = (np.hypot(rows - center[0], cols - center[1]) < rng.uniform(1.5, 3.0)) & brain
        tissue = gain * (1 + 0.08 * bias)
        image = np.where(brain, tissue * np.where(tumour, contrast, 1.0), 0.0)
        image += 0.04 * gain * rng.normal(size=(SIZE, SIZE)) * brain
        images.append(image)
        masks.append(tumour.astype(float))
    return (torch.tensor(np.stack(images), dtype=torch.float32),
            torch.tensor(np.stack(masks)[:, None], dtype=torch.float32))


def rod_volumes(count, depth=8, size=12, seed=0):
    """(volumes (N, depth, size, size) float32 in (z, y, x) order, y (N,) int64): a bright
    rod of 5 voxels along z (class 0), y (1) or x (2) at a random place, in noise."""
    rng = np.random.default_rng(seed)
    vols, ys = [], []
    for _ in range(count):
        c = int(rng.integers(3))
        vol = rng.normal(size=(depth, size, size)) * 0.7
        z = rng.integers(1, depth - 1)
        y, x = rng.integers(2, size - 2), rng.integers(2, size - 2)
        if c == 0:
            z0 = rng.integers(0, depth - 4)
            vol[z0:z0 + 5, y, x] += 1.5
        elif c == 1:
            y0 = rng.integers(0, size - 4)
            vol[z, y0:y0 + 5, x] += 1.5
        else:
            x0 = rng.integers(0, size - 4)
            vol[z, y, x0:x0 + 5] += 1.5
        vols.append(vol)
        ys.append(c)
    return torch.tensor(np.stack(vols), dtype=torch.float32), torch.tensor(ys)


class SliceNet(nn.Module):
    """A small 2-D CNN classifier for 16x16 slices."""

    def __init__(self, classes=3, width=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(width * 16, classes)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


class TinyFCN(nn.Module):
    """A small fully convolutional segmenter: one logit per pixel."""

    def __init__(self, width=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, 1, 1))

    def forward(self, x):
        return self.net(x)


class Tiny3DCNN(nn.Module):
    """A small 3-D CNN with global pooling (it takes any volume size)."""

    def __init__(self, classes=3, width=12):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv3d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv3d(width, width, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.body(x).amax(dim=(2, 3, 4)))


def index_batches(count, steps, batch_size=32, seed=0):
    """``steps`` batches of row indices into ``count`` rows, reshuffled every epoch."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(count))
        for start in range(0, count - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    result = float((model(x).argmax(1) == y).float().mean())
    model.train()
    return result


@torch.no_grad()
def dice(model, x, mask):
    """Dice of the predicted mask (logit > 0) against ``mask``, over all pixels of the set."""
    model.eval()
    pred = (model(x) > 0).float()
    model.train()
    return float(2 * (pred * mask).sum() / (pred.sum() + mask.sum()).clamp_min(1))
