"""Synthetic action-recognition videos for the cases of real-bug batch 127 (video models).

A video is ``frames`` grey frames of SIZE x SIZE pixels in the 0-255 range (as decoded
frames are): a bright 3x3 square moves across a noisy background, wrapping around at the
edges. The class is its motion: one of four directions (right, left, down, up) at one of
two speeds, eight classes. Nothing in a single frame tells the class: a model has to read
how the frames follow each other, as an action recogniser does.

``render`` draws videos with a numpy generator from ``np.random.default_rng`` (so
``--shift-seeds`` moves them); the held-out videos are drawn from another seed.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import index_batches as common_index_batches

SIZE = 16
CLASSES = 8
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))     # (rows, columns) per frame: right, left,
#                                                     down, up


def render(count, frames, speeds=(1.0, 2.0), seed=0, held_out=False, size=SIZE):
    """(videos, labels): float32 (count, frames, size, size) in [0, 255] and int64 (count,).
    Label ``2 * direction + speed index``; the square moves ``speed`` pixels a frame
    (rounded to whole pixels, so half a pixel a frame steps every other frame)."""
    rng = np.random.default_rng(seed + (5003 if held_out else 0))
    labels = rng.integers(0, CLASSES, count)
    videos = rng.uniform(0, 60, (count, frames, size, size)).astype(np.float32)
    start = rng.integers(0, size, (count, 2))
    t = np.arange(frames)
    for i, label in enumerate(labels):
        (dr, dc), speed = DIRECTIONS[label // 2], speeds[label % 2]
        jitter = rng.integers(0, 2)                  # phase of a half-pixel step
        steps = np.floor(speed * t + 0.5 * jitter).astype(int)
        for f in range(frames):
            r, c = start[i, 0] + dr * steps[f], start[i, 1] + dc * steps[f]
            rows = (r + np.arange(3)) % size
            cols = (c + np.arange(3)) % size
            videos[i, f][np.ix_(rows, cols)] = rng.uniform(180, 255)
    return torch.from_numpy(videos), torch.from_numpy(labels.astype(np.int64))


class TinyC3D(nn.Module):
    """A C3D-like clip classifier: two 3x3x3 convolutions, spatial pooling, a global
    average over time and space, a linear head. Input (batch, 1, time, SIZE, SIZE)."""

    def __init__(self, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(width, 2 * width, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool3d(1), nn.Flatten())
        self.head = nn.Linear(2 * width, CLASSES)

    def forward(self, clips):
        return self.head(self.features(clips))


def index_batches(count, steps, batch_size=32, seed=0):
    """``steps`` batches of row indices into ``count`` videos, reshuffled every epoch (a
    stream of its own: the seed moved by 17)."""
    return common_index_batches(count, steps, batch_size, seed + 17)


@torch.no_grad()
def accuracy(model, clips, labels):
    """Clip accuracy of ``model`` on (N, 1, T, H, W) clips, in eval mode (restored after)."""
    was = model.training
    model.eval()
    hit = (model(clips).argmax(1) == labels).float().mean().item()
    model.train(was)
    return hit



def render_groups(groups_per_class, clips_per_group, frames, seed=0, held_out=False,
                  contrast=(60.0, 90.0), noise=10.0):
    """Clips cut from long videos, UCF101-style: every group is one long video (one class,
    one scene: a fixed background texture at its own brightness) and its clips share that
    scene; the square moves as in ``render`` but faintly (``contrast`` over the scene)
    under per-frame noise. Returns (videos (N, frames, SIZE, SIZE) float32, labels (N,),
    groups (N,) int64), clips of a group adjacent."""
    rng = np.random.default_rng(seed + (7001 if held_out else 0))
    count = CLASSES * groups_per_class * clips_per_group
    labels = np.repeat(np.arange(CLASSES), groups_per_class * clips_per_group)
    groups = np.repeat(np.arange(CLASSES * groups_per_class), clips_per_group)
    scenes = (rng.uniform(0, 100, (CLASSES * groups_per_class, 1, 1))
              + rng.uniform(0, 30, (CLASSES * groups_per_class, SIZE, SIZE)))
    videos = scenes[groups][:, None] + rng.normal(0, noise, (count, frames, SIZE, SIZE))
    start = rng.integers(0, SIZE, (count, 2))
    for i, label in enumerate(labels):
        (dr, dc), speed = DIRECTIONS[label // 2], (1, 2)[label % 2]
        lift = rng.uniform(*contrast)
        for f in range(frames):
            r, c = start[i, 0] + dr * speed * f, start[i, 1] + dc * speed * f
            rows = (r + np.arange(3)) % SIZE
            cols = (c + np.arange(3)) % SIZE
            videos[i, f][np.ix_(rows, cols)] += lift
    videos = np.clip(videos, 0, 255).astype(np.float32)
    return (torch.from_numpy(videos), torch.from_numpy(labels.astype(np.int64)),
            torch.from_numpy(groups.astype(np.int64)))
