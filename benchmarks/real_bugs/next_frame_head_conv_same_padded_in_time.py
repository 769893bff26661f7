"""A next-frame predictor whose recurrent stack is causal but whose last layer is a
convolution over time with "same" padding: its output at step t reads the features of step
t+1, and the target at step t IS frame t+1. The model learns to pass the next input frame
through, the training loss drops to the noise floor, nothing errors, and when it has to
predict a frame that has not been seen yet (the last step of the clip so far, as when
forecasting) the convolution reads zero padding there and the prediction is poor.

Reported: "Data leakage in Next-Frame Video Prediction with Convolutional LSTMs" -
https://github.com/keras-team/keras-io/issues/1003 (the reporter noticed that the tutorial's
final Conv3D has direct access to the frame it is trying to predict, so the results are
unreasonably good; a later comment confirmed that the ConvLSTM stack is causal but the final
Conv3D(kernel (3, 3, 3), padding="same") mixes neighbouring time steps while the target is
shifted by one frame, and proposed padding the time axis on the left only). Here: clips of
one-dimensional frames (16 pixels, 10 frames) of a bouncing bump (benchmarks/real_bugs/
_future_leaks.py), a per-frame linear encoder, a GRU over time, a Conv1d head over time
(kernel 3) with a sigmoid, binary cross-entropy on frames 1..9 from frames 0..8, Adam. Fix:
pad the head's time axis by 2 on the left and none on the right.

Measured (1200 steps, batch 32; held-out mean squared error of the next frame predicted from
the frames so far, at every clip length 1..9, on 256 held-out clips - from one frame the
bump's speed is unknown, so no model reaches the noise floor of 0.0009): seed 0, 0.024 for
the bug against 0.0070 for the fixed twin (the bug's error with the whole clip given, as in
training: 0.0008); seeds shifted by 1000, 0.022 against 0.0068 (0.0007).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._future_leaks import bouncing_frames

TITLE = "Data leakage in Next-Frame Video Prediction with Convolutional LSTMs"
LINK = "https://github.com/keras-team/keras-io/issues/1003"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 1200
WIDTH = 16


class NextFrame(nn.Module):
    def __init__(self, causal_head, width=WIDTH, dim=48):
        super().__init__()
        self.causal_head = causal_head
        self.encode = nn.Linear(width, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        # BUG (causal_head=False): padding=1 on both sides of time, "same"
        self.head = nn.Conv1d(dim, width, 3, padding=0 if causal_head else 1)

    def forward(self, frames):                           # (B, T, width) -> (B, T, width)
        h, _ = self.rnn(torch.relu(self.encode(frames)))
        h = h.transpose(1, 2)
        if self.causal_head:
            h = nn.functional.pad(h, (2, 0))              # the past only
        return torch.sigmoid(self.head(h).transpose(1, 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = bouncing_frames(2048, seed=0)
    held_out = bouncing_frames(256, seed=1)
    model = NextFrame(causal_head=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    order = torch.randperm(len(train))
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            index = order[(step * 32) % len(train):(step * 32) % len(train) + 32]
            clips = train[index].clamp(0, 1)
            predicted = model(clips[:, :-1])
            loss = nn.functional.binary_cross_entropy(predicted, clips[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        clips = held_out.clamp(0, 1)
        errors = []
        for t in range(1, clips.shape[1]):                # the frames 0..t-1 are known
            guess = model(clips[:, :t])[:, -1]
            errors.append(((guess - clips[:, t]) ** 2).mean())
        mon.held_out_mse = torch.stack(errors).mean().item()
        whole = model(clips[:, :-1])
        mon.held_out_mse_whole_clip = ((whole - clips[:, 1:]) ** 2).mean().item()
    return mon
