"""A WiFi-sensing LSTM whose input permutation was written for (batch, features, time) data
and kept for a dataset stored as (batch, time, features): ``x.permute(2, 0, 1)`` hands the
LSTM the subcarriers as its time steps and each subcarrier's whole time series as one step's
input, so the recurrence runs over a long sequence of subcarriers instead of over time.

Reported: "关于NTU_Fi_LSTM的输入X的格式问题" (on the input format of NTU_Fi_LSTM) -
https://github.com/xyanchen/WiFi-CSI-Sensing-Benchmark/issues/9 (`x.permute(2,0,1)` fits the
NTU-Fi HAR data but "does not fit" the Widar data, whose windows are (batch, time, feature);
with `x.permute(1, 0, 2)` both fit. The maintainer: the HAR data is (batch, feature, time),
so permute(2, 0, 1) puts time first; Widar is (batch, time, feature) and needs
permute(1, 0, 2); "only when dim 0 is time does the LSTM fit properly"). Here synthetic
windows of 20 time steps over 96 subcarriers: each of 4 activities moves at its own speed,
seen on every subcarrier with its own gain and phase under unit noise.
Fix: `x.permute(1, 0, 2)` for (batch, time, feature) windows (and `nn.LSTM(96, ...)`).

Measured (200 steps, 300 held-out windows): held-out accuracy 0.61 with the bug, 1.00 fixed.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "关于NTU_Fi_LSTM的输入X的格式问题"
LINK = "https://github.com/xyanchen/WiFi-CSI-Sensing-Benchmark/issues/9"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 200
WINDOWS, TIME, SUBCARRIERS, ACTIVITIES = 1200, 20, 96, 4
HELD_OUT = 300


def csi_windows():
    """(windows, time, subcarriers) amplitudes and the activity of each window."""
    activity = torch.randint(0, ACTIVITIES, (WINDOWS,))
    t = torch.arange(TIME).float()
    gain = 0.5 * torch.rand(SUBCARRIERS)
    phase = 2 * math.pi * torch.rand(SUBCARRIERS)
    speed = 0.25 + 0.25 * activity.float()
    motion = torch.sin(speed[:, None, None] * t[None, :, None] + phase)
    return gain * motion + torch.randn(WINDOWS, TIME, SUBCARRIERS), activity


class CsiLSTM(nn.Module):
    def __init__(self, time_major_fix, hidden=64):
        super().__init__()
        self.time_major_fix = time_major_fix
        self.lstm = nn.LSTM(SUBCARRIERS if time_major_fix else TIME, hidden)
        self.fc = nn.Linear(hidden, ACTIVITIES)

    def forward(self, x):                          # x: (batch, time, subcarriers)
        if self.time_major_fix:
            x = x.permute(1, 0, 2)                 # (time, batch, subcarriers)
        else:
            x = x.permute(2, 0, 1)                 # BUG: (subcarriers, batch, time)
        out, _ = self.lstm(x)
        return self.fc(out[-1])


def window_batches(x, y, steps, batch_size=64):
    g = torch.Generator().manual_seed(torch.initial_seed() + 1)   # moves with the seed
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = csi_windows()
    model = CsiLSTM(time_major_fix=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.functional.cross_entropy,
                        window_batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess = model(x[-HELD_OUT:]).argmax(1)
        mon.accuracy = round(float((guess == y[-HELD_OUT:]).float().mean()), 3)
    return mon
