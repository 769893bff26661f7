"""A wav2vec/Mockingjay-style masked frame predictor: spans of feature frames are zeroed
in the input and a bidirectional GRU rebuilds the frames; the loss should be read at the
masked frames only. The hand-written loss does ``loss.masked_fill(mask, 0)`` - it zeroes
the MASKED frames and averages the visible ones - so the model is only ever trained to
copy the frames it can see. The loss falls to almost nothing; the masked spans, the whole
point of the task, are never learned and come out near zero.

Reported: "There might be a bug in the loss calculation" -
https://github.com/lucidrains/voicebox-pytorch/issues/6 ("At first, we set all masked
parts = 0 ... In the paper, they set all unmasked parts = 0 and average masked parts").
Here 12-channel smooth signals of 24 frames (``_ssl328.feature_frames``), three spans of
four frames masked per row, Adam, 200 steps of 32 rows, squared error.

Fix: zero the loss at the visible frames (``masked_fill(~mask, 0)``) and average over the
masked frames.

Measured (held-out MSE on the masked frames): 0.49 with the bug, 0.15 fixed;
seeds + 1000: 0.47 vs 0.15.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ssl328 import feature_frames, span_mask

TITLE = "There might be a bug in the loss calculation"
LINK = "https://github.com/lucidrains/voicebox-pytorch/issues/6"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS", "TARGETS_IN_INPUTS")
STEPS = 200
CHANNELS = 12


class MaskedPredictor(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.inp = nn.Linear(CHANNELS, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, CHANNELS)

    def forward(self, x):
        h, _ = self.rnn(torch.relu(self.inp(x)))
        return self.out(h)


@torch.no_grad()
def masked_error(model, frames):
    g = torch.Generator().manual_seed(123)
    mask = span_mask(len(frames), frames.shape[1], g)
    model.eval()
    pred = model(frames.masked_fill(mask[..., None], 0.0))
    model.train()
    return ((pred - frames) ** 2)[mask].mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    frames = feature_frames(1024, frames=24, seed=0)
    held = feature_frames(256, frames=24, seed=0, held_out=True)
    model = MaskedPredictor()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(torch.initial_seed())
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(frames), steps, seed=0):
            x = frames[index]
            mask = span_mask(len(x), x.shape[1], g)
            pred = model(x.masked_fill(mask[..., None], 0.0))
            err = ((pred - x) ** 2).mean(-1)                 # (batch, frames)
            if fixed:
                loss = err.masked_fill(~mask, 0.0).sum() / mask.sum()
            else:
                # BUG: zeroes the masked frames and averages the visible ones
                loss = err.masked_fill(mask, 0.0).sum() / (~mask).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_masked_mse = masked_error(model, held)
    return mon
