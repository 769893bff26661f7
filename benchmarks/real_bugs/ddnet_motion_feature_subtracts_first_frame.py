"""DD-Net's motion features - the frame-to-frame differences of the joint coordinates that
its "slow" and "fast" motion branches read - computed as ``x[:, :1] - x[:, :-1]`` instead of
``x[:, 1:] - x[:, :-1]``: a one-character slip (``:1`` for ``1:``) that broadcasts the FIRST
frame against every frame, so the branches meant to see velocities get each frame's
displacement from the start of the clip. Nothing fails and the shapes are the ones
expected; the motion branches are handed the slow drift of the whole body (large) where
they were to see its quick movements (small), and the gesture that lives in those quick
movements is buried under it.

Reported: "An error of poses_diff() function" - https://github.com/fandulu/DD-Net/issues/6
("the subtract operation subtract x[:, :1, ...] and x[:, :-1, ...], while the first input
might be wrong, it should be x[:, 1:, ...]. Current operation in fact subtract the first
postion for all frames with array broadcast"; the maintainer fixed it: "such a correction
did an improvement in SHREC data ... from 91.8 to 94.1 with 0.15M parameters"). Here a
small DD-Net (joint-collection distances, slow and fast motion, 1-D convolutions, global
max pooling) classifies 6 synthetic hand gestures of 12 joints over 32 frames: each hand
has its own shape and drifts slowly and widely through space; the gesture is a quick
rigid shake whose frequency is the class (the distances, invariant to rigid motion, cannot
see it). Fix: ``x[:, 1:] - x[:, :-1]`` (then resized back to the clip length, as DD-Net
does).

No finding code names a size-1 axis broadcast inside a feature computation; the nearest is
LOSS_SHAPE_MISMATCH (an (N, 1) tensor broadcast against (N,) where elementwise was meant),
the same slip made in the loss rather than in the features.

Measured (held-out accuracy, 6 classes): 0.16 with the bug, 0.99 fixed; seeds + 1000: 0.17
vs 0.98.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "An error of poses_diff() function"
LINK = "https://github.com/fandulu/DD-Net/issues/6"
EXPECTED = ("LOSS_SHAPE_MISMATCH",)
STEPS = 200
FRAMES, JOINTS, CLASSES = 32, 12, 6
PAIRS = torch.triu_indices(JOINTS, JOINTS, offset=1)


def gestures(n, rng):
    """(n, FRAMES, JOINTS, 3) clips, their joint distances and their labels: a random hand
    shape, a slow wide drift of the whole hand (a steady velocity and a sway of tens of cm),
    a quick rigid shake (3 cm) at the class's frequency, and sensor noise."""
    labels = rng.integers(0, CLASSES, n)
    shape = rng.normal(0, 0.1, (n, 1, JOINTS, 3))
    t = np.arange(FRAMES)[None, :, None] / FRAMES
    velocity = rng.normal(0, 0.01, (n, 1, 3))
    sway = rng.normal(0, 0.2, (n, 1, 3)) * np.sin(np.pi * t + rng.uniform(0, 6.3, (n, 1, 1)))
    drift = velocity * np.arange(FRAMES)[None, :, None] + sway      # slow, wide
    freq = (2 + 1.5 * labels)[:, None, None]                         # cycles per clip
    phase = rng.uniform(0, 2 * np.pi, (n, 1, 1))
    direction = rng.normal(size=(n, 1, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    shake = 0.03 * np.sin(2 * np.pi * freq * t + phase) * direction
    clips = shape + (drift + shake)[:, :, None, :]
    clips = torch.tensor(clips + rng.normal(0, 0.002, clips.shape), dtype=torch.float32)
    return clips, jcd(clips), torch.tensor(labels)


def jcd(clips):
    """DD-Net's joint collection distances, computed with the data: (n, FRAMES, pairs)."""
    return (clips[:, :, PAIRS[0]] - clips[:, :, PAIRS[1]]).norm(dim=-1)


def poses_diff(x, fixed):
    """(B, T, J*3) -> (B, T, J*3): DD-Net's motion, resized back to T frames (nearest)."""
    if fixed:
        diff = x[:, 1:] - x[:, :-1]
    else:
        diff = x[:, :1] - x[:, :-1]            # BUG: the first frame minus every frame
    return F.interpolate(diff.transpose(1, 2), size=x.shape[1], mode="nearest").transpose(1, 2)


def embed(inputs, width):
    return nn.Sequential(nn.Conv1d(inputs, width, 1), nn.LeakyReLU(0.2),
                         nn.Conv1d(width, width, 3, padding=1), nn.LeakyReLU(0.2))


class DDNet(nn.Module):
    def __init__(self, fixed, width=16):
        super().__init__()
        self.fixed = fixed
        self.jcd = embed(len(PAIRS[0]), width)
        self.slow = embed(JOINTS * 3, width)
        self.fast = embed(JOINTS * 3, width)
        self.body = nn.Sequential(nn.Conv1d(3 * width, 32, 3, padding=1), nn.LeakyReLU(0.2),
                                  nn.MaxPool1d(2), nn.Conv1d(32, 32, 3, padding=1),
                                  nn.LeakyReLU(0.2))
        self.head = nn.Linear(32, CLASSES)

    def forward(self, clips, distances):                # (B, T, J, 3), (B, T, pairs)
        b = clips.shape[0]
        poses = clips.reshape(b, FRAMES, JOINTS * 3)
        slow = poses_diff(poses, self.fixed)
        fast = poses_diff(poses[:, ::2], self.fixed)
        x = torch.cat([self.jcd(distances.transpose(1, 2))[:, :, ::2],
                       self.slow(slow.transpose(1, 2))[:, :, ::2],
                       self.fast(fast.transpose(1, 2))], 1)
        return self.head(self.body(x).amax(-1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, d, y = gestures(1200, rng)
    x_test, d_test, y_test = gestures(600, rng)
    model = DDNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    order = np.random.default_rng(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(order.integers(0, len(x), 32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows] * 10, d[rows] * 10), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x_test * 10, d_test * 10).argmax(1)
        mon.held_out_accuracy = (predicted == y_test).float().mean().item()
    return mon
