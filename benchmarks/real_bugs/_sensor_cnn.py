"""Synthetic wearable-sensor streams for beginner 1-D CNN activity classifiers (real-bug
batch 257).

``activity_stream`` draws one long recording: a sequence of activity segments of random
length, each activity a pair of oscillations per channel (its own frequency and amplitudes,
as walking, running, stairs and rest differ in cadence and intensity) plus white noise, with
a per-time-step activity label. ``windows`` cuts it into fixed windows the way tutorials do
(width, stride) and names each window's label by a chosen rule. ``ConvNet`` is the usual
small temporal classifier (two 1-D convolutions over time, ReLU, average over time, linear).
"""
import numpy as np
import torch
from torch import nn

CHANNELS = 3
CLASSES = 4
FREQS = np.array([0.04, 0.08, 0.13, 0.19])            # cycles per sample, one per activity
AMPS = np.array([[1.0, 0.4, 0.7], [0.6, 1.0, 0.5],
                 [0.8, 0.7, 1.0], [0.5, 0.6, 0.9]])


def activity_stream(rng, length, mean_segment=48, noise=0.6, bias=0.0):
    """(x float32 (CHANNELS, length), labels int64 (length,)): random-length activity
    segments (uniform between half and one and a half ``mean_segment``); ``bias`` > 0 adds
    a constant per-channel offset of that sd to each segment (the sensor sitting a little
    differently every time the wearer starts an activity)."""
    x = np.zeros((CHANNELS, length), np.float32)
    labels = np.zeros(length, np.int64)
    start = 0
    while start < length:
        span = int(rng.integers(mean_segment // 2, mean_segment * 3 // 2 + 1))
        c = int(rng.integers(CLASSES))
        t = np.arange(span)
        phase = rng.uniform(0, 2 * np.pi, (CHANNELS, 1))
        seg = AMPS[c][:, None] * np.sin(2 * np.pi * FREQS[c] * t + phase)
        if bias:
            seg = seg + bias * rng.standard_normal((CHANNELS, 1))
        end = min(length, start + span)
        x[:, start:end] = seg[:, :end - start]
        labels[start:end] = c
        start = end
    x += noise * rng.standard_normal(x.shape).astype(np.float32)
    return x, labels


def windows(x, labels, width, stride, label="mode"):
    """Windows (n, CHANNELS, width) and one label per window: "mode" (the activity filling
    most of the window), "last" (the window's last step) or "next" (the step after the
    window, as Keras' TimeseriesGenerator pairs data[i - length:i] with targets[i])."""
    starts = range(0, x.shape[1] - width - 1, stride)
    xs = np.stack([x[:, s:s + width] for s in starts])
    if label == "mode":
        ys = [np.bincount(labels[s:s + width], minlength=CLASSES).argmax() for s in starts]
    elif label == "last":
        ys = [labels[s + width - 1] for s in starts]
    else:
        ys = [labels[s + width] for s in starts]
    return torch.from_numpy(xs), torch.tensor(np.array(ys), dtype=torch.long)


class ConvNet(nn.Module):
    def __init__(self, channels=CHANNELS, classes=CLASSES, hidden=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(channels, hidden, 7, padding=3), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, padding=2), nn.ReLU())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(-1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        hit = (model(x).argmax(-1) == y).float().mean().item()
    model.train()
    return round(hit, 3)
