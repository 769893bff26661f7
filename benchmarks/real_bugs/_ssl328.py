"""Pieces real-bug batch 328's self-supervised sequence cases share (each case keeps its
own bug in its own file): small synthetic sequences drawn with a fixed numpy seed.

``moving_squares``: clips of 8x8 grey frames (pixels in [0, 1]) in which a 2x2 bright
square moves a fixed step per frame (one of eight directions, speed 1 pixel), wrapping
around at the edges, over faint noise. Predicting a frame needs the square's place and
its velocity, both read from the frames before it.

``feature_frames``: (count, frames, channels) smooth multichannel signals (a few random
sinusoids mixed into each channel), the kind of frame features a wav2vec-style masked
predictor rebuilds; ``span_mask`` draws the masked spans.
"""
import numpy as np
import torch

SIZE = 8
STEPS_XY = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))


def moving_squares(count, frames=10, seed=0, held_out=False):
    """float32 tensor (count, frames, 64)."""
    rng = np.random.default_rng(seed + (7919 if held_out else 0))
    clips = rng.uniform(0, 0.1, (count, frames, SIZE, SIZE)).astype(np.float32)
    for i in range(count):
        dr, dc = STEPS_XY[rng.integers(len(STEPS_XY))]
        r, c = rng.integers(0, SIZE, 2)
        for t in range(frames):
            rows = [(r + dr * t + k) % SIZE for k in (0, 1)]
            cols = [(c + dc * t + k) % SIZE for k in (0, 1)]
            for rr in rows:
                for cc in cols:
                    clips[i, t, rr, cc] = 1.0
    return torch.from_numpy(clips.reshape(count, frames, SIZE * SIZE))


def feature_frames(count, frames=32, channels=12, seed=0, held_out=False):
    """float32 tensor (count, frames, channels), roughly unit scale."""
    rng = np.random.default_rng(seed + (7919 if held_out else 0))
    t = np.arange(frames, dtype=np.float32)[None, :, None]
    freq = rng.uniform(0.1, 0.5, (count, 1, 3))
    phase = rng.uniform(0, 2 * np.pi, (count, 1, 3))
    waves = np.sin(freq * t + phase)                       # (count, frames, 3)
    mix = rng.normal(0, 1, (count, 3, channels)) / np.sqrt(3)
    x = waves @ mix + rng.normal(0, 0.05, (count, frames, channels))
    return torch.from_numpy(x.astype(np.float32))


def span_mask(batch, frames, generator, spans=3, width=4):
    """bool (batch, frames): ``spans`` spans of ``width`` frames per row, True = masked."""
    mask = torch.zeros(batch, frames, dtype=torch.bool)
    starts = torch.randint(0, frames - width + 1, (batch, spans), generator=generator)
    for k in range(width):
        mask.scatter_(1, starts + k, True)
    return mask
