"""Pieces the cases of real-bug batch 202 (video and optical flow models) share.

``moving_textures`` draws short videos of a smooth random texture sliding at a constant
sub-pixel velocity (what frame interpolation and motion-compensated restoration read);
``clip_classifier_frames`` is a small per-frame CNN encoder for the CNN-LSTM case. The
classification videos themselves come from batch 127's ``_video_clips`` and the texture
and warping pieces from batch 134's ``_depth_flow``. Every draw here comes from torch's
global generator, so ``torch.manual_seed`` at the top of a case fixes it.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._depth_flow import SIZE, textures, warp


def moving_textures(n, frames, max_speed, size=SIZE):
    """(videos (n, frames, 1, size, size), velocity (n, 2)): frame k is the first frame's
    texture moved by ``k * velocity`` pixels (|vx|, |vy| <= max_speed per frame), sampled
    bilinearly from a texture drawn a little larger so nothing wraps."""
    pad = int(max_speed * frames) + 2
    base = textures(n, size + 2 * pad)
    velocity = (torch.rand(n, 2) * 2 - 1) * max_speed
    out = []
    for k in range(frames):
        shift = (-k * velocity)[:, :, None, None].expand(n, 2, size + 2 * pad, size + 2 * pad)
        moved = warp(base, shift)
        out.append(moved[:, :, pad:pad + size, pad:pad + size])
    return torch.stack(out, dim=1), velocity


def psnr(pred, target):
    """Peak signal-to-noise ratio in dB of images in [0, 1]."""
    return (-10 * torch.log10(F.mse_loss(pred, target))).item()


class FrameEncoder(nn.Module):
    """Per-frame features of (N, 1, SIZE, SIZE) frames: two convolutions, a 4x4 pooled map,
    a linear layer (the pretrained CNN of a CNN-LSTM, small and trained here)."""

    def __init__(self, features=64, width=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(16 * width, features), nn.ReLU())

    def forward(self, frames):
        return self.net(frames)


def render_with_onset(count, frames, max_onset, seed=0, held_out=False, size=SIZE):
    """Action videos like batch 127's ``_video_clips.render`` (a bright 3x3 square on a
    noisy background, 8 classes: four directions at speeds 1 and 2 pixels a frame) where
    the action starts late, as in trimmed real videos: the square stands still for a random
    ``0 .. max_onset`` frames and only then moves. Returns (videos (count, frames, size,
    size) float32 in [0, 255], labels (count,) int64, onsets (count,) int64); drawn from
    ``np.random.default_rng`` (the held-out videos from another seed)."""
    import numpy as np
    from benchmarks.real_bugs._video_clips import CLASSES, DIRECTIONS
    rng = np.random.default_rng(seed + (9011 if held_out else 0))
    labels = rng.integers(0, CLASSES, count)
    onsets = rng.integers(0, max_onset + 1, count)
    videos = rng.uniform(0, 60, (count, frames, size, size)).astype(np.float32)
    start = rng.integers(0, size, (count, 2))
    for i, label in enumerate(labels):
        (dr, dc), speed = DIRECTIONS[label // 2], (1, 2)[label % 2]
        brightness = rng.uniform(180, 255)
        for f in range(frames):
            moved = speed * max(0, f - onsets[i])
            rows = (start[i, 0] + dr * moved + np.arange(3)) % size
            cols = (start[i, 1] + dc * moved + np.arange(3)) % size
            videos[i, f][np.ix_(rows, cols)] = brightness
    return (torch.from_numpy(videos), torch.from_numpy(labels.astype(np.int64)),
            torch.from_numpy(onsets.astype(np.int64)))
