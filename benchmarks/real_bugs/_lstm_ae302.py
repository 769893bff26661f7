"""Shared pieces of real-bug batch 302 (LSTM autoencoders for time-series anomaly detection
from first tutorials): a small multichannel series whose test part holds anomalies that
keep every value inside its normal range, cut into sliding windows. Kept small: each case
shows its own bug."""
import numpy as np
import torch

from benchmarks.real_bugs._one_class import auroc, index_batches  # noqa: F401

WINDOW = 20
CHANNELS = 3


def phase_series(seed=0, train=2000, test=1000, bursts=12, burst_len=20, burst_speed=2.5):
    """(series (N, CHANNELS) float32, anomaly mask (N,)): three phase-shifted sines of a
    slowly wandering period plus noise; in the test part, ``bursts`` stretches of
    ``burst_len`` steps run at ``burst_speed`` times the speed (-1: backwards) - every
    frame still lies on the normal ring of values, only the order in time is wrong."""
    rng = np.random.default_rng(seed)
    n = train + test
    speed = np.full(n, 2 * np.pi / 40) * (1 + 0.05 * np.sin(np.arange(n) / 300))
    mask = np.zeros(n)
    for _ in range(bursts):
        at = rng.integers(train, n - burst_len)
        speed[at:at + burst_len] *= burst_speed
        mask[at:at + burst_len] = 1
    phase = np.cumsum(speed)
    x = np.stack([np.sin(phase + k * 2 * np.pi / 3) for k in range(CHANNELS)], 1)
    x = x + rng.normal(0, 0.05, x.shape)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(mask)


def windows(x, mask, step=1):
    """Sliding windows (M, WINDOW, CHANNELS) and whether each holds an anomalous step."""
    starts = range(0, len(x) - WINDOW + 1, step)
    return (torch.stack([x[s:s + WINDOW] for s in starts]),
            torch.stack([mask[s:s + WINDOW].max() for s in starts]))


def metric_series(seed=0, train=2000, test=1000, bursts=12, burst_len=20,
                  periods=(13.0, 21.0, 34.0)):
    """(series (N, 3) float32, anomaly mask (N,)): three independent metrics, each a sine of
    its own period and phase (a slowly wandering speed) plus noise; in the test part each
    of ``bursts`` stretches of ``burst_len`` steps runs ONE metric at 2.5 times its speed -
    its values stay in their normal range, only its rhythm breaks."""
    rng = np.random.default_rng(seed)
    n = train + test
    t = np.arange(n)
    speeds = np.stack([np.full(n, 2 * np.pi / p) * (1 + 0.05 * np.sin(t / 300 + k))
                       for k, p in enumerate(periods)], 1)
    mask = np.zeros(n)
    for _ in range(bursts):
        at = rng.integers(train, n - burst_len)
        speeds[at:at + burst_len, rng.integers(len(periods))] *= 2.5
        mask[at:at + burst_len] = 1
    x = np.sin(np.cumsum(speeds, 0) + rng.uniform(0, 2 * np.pi, len(periods)))
    x = x + rng.normal(0, 0.05, x.shape)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(mask)
