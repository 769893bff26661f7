"""A small video world model: a bidirectional GRU encodes the frames of a clip, and a
predictor maps the state at step t to frame t+1. The whole clip is encoded in one pass and
the predictor's contexts are sliced out of it afterwards (``states[:, :-1]``), so the
backward half of every context has already read the frame it must predict. The loss
falls quickly; at use time, when only the past has been seen, the predictor is lost.

Reported: "VLA-JEPA default world-model loss leaks future frames into context via shared
V-JEPA2 encoder pass" - https://github.com/huggingface/lerobot/issues/4153 ("The context
contains future-frame information"; fixed in lerobot#4381 by encoding each context
position from its own frame prefix). Here clips of 10 8x8 frames of a moving 2x2 square
(``_ssl328.moving_squares``), pixel targets under MSE, Adam, 200 steps of 32 clips.

Fix: encode each context position from its own prefix (frames 0..t) only, one encoder
pass per position, as the fix does.

Measured (held-out MSE x1000 of the frame after each clip's first 9 frames, encoded from
those 9 only): 53.4 with the bug, 14.8 fixed; seeds + 1000: 50.1 vs 16.2.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ssl328 import moving_squares

TITLE = ("VLA-JEPA default world-model loss leaks future frames into context via shared "
         "V-JEPA2 encoder pass")
LINK = "https://github.com/huggingface/lerobot/issues/4153"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 200
PIXELS = 64


class WorldModel(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(PIXELS, hidden), nn.ReLU())
        self.encoder = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.predictor = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(),
                                       nn.Linear(hidden, PIXELS))

    def encode(self, frames):                          # (batch, time, 64) -> states
        return self.encoder(self.embed(frames))[0]

    def prefix_contexts(self, frames):
        """State at each position t < T-1 encoded from frames 0..t only."""
        return torch.stack([self.encode(frames[:, :t + 1])[:, -1]
                            for t in range(frames.shape[1] - 1)], dim=1)

    def forward(self, frames, causal):
        if causal:
            contexts = self.prefix_contexts(frames)
        else:
            contexts = self.encode(frames)[:, :-1]     # BUG: one pass over the whole clip
        return self.predictor(contexts)                # predictions of frames 1..T-1


@torch.no_grad()
def next_frame_error(model, clips):
    model.eval()
    state = model.encode(clips[:, :-1])[:, -1]         # only the past has been seen
    pred = model.predictor(state)
    model.train()
    return F.mse_loss(pred, clips[:, -1]).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    clips = moving_squares(1024, seed=0)
    held = moving_squares(256, seed=0, held_out=True)
    model = WorldModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(clips), steps, seed=0):
            batch = clips[index]
            pred = model(batch, causal=fixed)
            loss = F.mse_loss(pred, batch[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mse_x1000 = 1000 * next_frame_error(model, held)
    return mon
