"""A next-frame video predictor (per-frame encoder, GRU over time) ends in a temporal
convolution of kernel 3 with "same" padding over the time axis, as in the ConvLSTM
tutorial's final Conv3D. Inputs are frames 0..T-2 and targets frames 1..T-1, so the output
at step t mixes the features of input frame t+1 - the very frame it must predict. Training
loss falls fast (the model copies the leaked frame); asked to predict a frame it has not
seen (the output after the last input, where only zero padding lies ahead) it is lost.

Reported: "Data leakage in Next-Frame Video Prediction with Convolutional LSTMs" -
https://github.com/keras-team/keras-io/issues/1003 ("the 3D convolution has direct access
to the frame it is trying to predict, so the results are unreasonably good"). Here clips of
10 8x8 frames of a 2x2 square moving one pixel a frame in one of eight directions
(``_ssl328.moving_squares``), Adam, 300 steps of 32 clips, MSE.

Fix: make the final temporal convolution causal (left-pad the time axis by two frames,
no right padding), so step t reads frames up to t only.

Measured (held-out MSE of the frame after each clip's last input, x1000): 17.2 with the
bug, 3.4 fixed; seeds + 1000: 17.2 vs 3.0.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ssl328 import moving_squares

TITLE = "Data leakage in Next-Frame Video Prediction with Convolutional LSTMs"
LINK = "https://github.com/keras-team/keras-io/issues/1003"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300
PIXELS = 64


class FramePredictor(nn.Module):
    def __init__(self, causal, hidden=96):
        super().__init__()
        self.causal = causal
        self.encode = nn.Sequential(nn.Linear(PIXELS, hidden), nn.ReLU())
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Conv1d(hidden, hidden, kernel_size=3)
        self.out = nn.Linear(hidden, PIXELS)

    def forward(self, frames):                       # (batch, time, 64)
        h, _ = self.rnn(self.encode(frames))
        h = h.transpose(1, 2)                        # (batch, hidden, time)
        if self.causal:
            h = F.pad(h, (2, 0))                     # frames up to t only
        else:
            h = F.pad(h, (1, 1))                     # BUG: "same" padding reads frame t+1
        h = F.relu(self.head(h)).transpose(1, 2)
        return self.out(h)


@torch.no_grad()
def next_frame_error(model, clips):
    model.eval()
    pred = model(clips[:, :-1])[:, -1]
    model.train()
    return F.mse_loss(pred, clips[:, -1]).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    clips = moving_squares(1024, seed=0)
    held = moving_squares(256, seed=0, held_out=True)
    model = FramePredictor(causal=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(clips), steps, seed=0):
            batch = clips[index]
            pred = model(batch[:, :-1])
            loss = F.mse_loss(pred, batch[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mse_x1000 = 1000 * next_frame_error(model, held)
    return mon
