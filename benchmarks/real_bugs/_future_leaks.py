"""Shared pieces of real-bug batch 140 (sequence models that see the future or mix samples):
a train/held-out split of the sonnets' characters, random training windows, a synthetic
one-dimensional "video" of bouncing bumps and synthetic noisy periodic series. Each case keeps
its bug in its own module."""
import math

import numpy as np
import torch

from benchmarks.real_bugs._common import characters

HELD_OUT_FRACTION = 0.15


def sonnet_split():
    """The sonnets' character ids cut into a training text and a held-out tail, and the
    vocabulary size."""
    ids, vocab = characters()
    cut = int(len(ids) * (1 - HELD_OUT_FRACTION))
    return ids[:cut], ids[cut:], vocab


def windows(ids, steps, batch_size, length, seed=0):
    """``steps`` batches of random windows of ``length + 1`` ids, (B, length + 1)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - length - 1, batch_size).tolist()
        yield torch.stack([ids[s:s + length + 1] for s in starts])


def held_out_windows(ids, length):
    """The held-out text as consecutive, non-overlapping windows of ``length + 1`` ids."""
    count = (len(ids) - 1) // length
    return torch.stack([ids[i * length:i * length + length + 1] for i in range(count)])


def bouncing_frames(count, frames=10, width=16, seed=0):
    """``count`` clips of ``frames`` one-dimensional frames (count, frames, width): a
    Gaussian bump of random start and speed (1 or 2 pixels a frame, either way) bouncing
    between the edges, with a little pixel noise. The next frame follows from the last two."""
    rng = np.random.default_rng(seed)
    position = rng.uniform(2, width - 3, count)
    speed = rng.choice([-2.0, -1.0, 1.0, 2.0], count)
    grid = np.arange(width)
    clips = np.zeros((count, frames, width), dtype=np.float32)
    for t in range(frames):
        clips[:, t] = np.exp(-0.5 * ((grid[None, :] - position[:, None]) / 1.0) ** 2)
        position = position + speed
        low, high = position < 0, position > width - 1
        position[low] = -position[low]
        position[high] = 2 * (width - 1) - position[high]
        speed[low | high] = -speed[low | high]
    clips += rng.normal(0, 0.03, clips.shape).astype(np.float32)
    return torch.from_numpy(clips)


def periodic_series(count, length=40, seed=0):
    """``count`` series (count, length, 1): two sines of random period (6-20 steps), phase
    and amplitude, plus a little noise; each series standardised by a fixed scale."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)[None, :]
    series = np.zeros((count, length))
    for _ in range(2):
        period = rng.uniform(6, 20, (count, 1))
        phase = rng.uniform(0, 2 * math.pi, (count, 1))
        amplitude = rng.uniform(0.5, 1.0, (count, 1))
        series += amplitude * np.sin(2 * math.pi * t / period + phase)
    series += rng.normal(0, 0.05, series.shape)
    return torch.from_numpy(series.astype(np.float32)).unsqueeze(-1)


def jittered_clips(images, labels, frames, rng):
    """Short "videos" of each digit: ``frames`` copies of the (N, 8, 8) images, each rolled by
    up to one pixel either way and with pixel noise; (N, frames, 64) and the labels."""
    n = len(images)
    clips = []
    for _ in range(frames):
        dx = rng.integers(-1, 2, n)
        dy = rng.integers(-1, 2, n)
        moved = torch.stack([torch.roll(images[i], (int(dy[i]), int(dx[i])), (0, 1))
                             for i in range(n)])
        noise = torch.from_numpy(rng.normal(0, 0.1, moved.shape).astype(np.float32))
        clips.append((moved + noise).reshape(n, 64))
    return torch.stack(clips, 1), labels
