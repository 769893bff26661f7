"""A CNN-LSTM video classifier that runs its LSTM one frame at a time in a Python loop
and never hands the state back: ``out, hidden = lstm(features_t)`` without ``hidden`` as
the second argument. Every call starts from a zero state, so the LSTM only ever sees one
frame, and the output kept after the loop - the last call's - depends on the LAST FRAME
ALONE. The model trains, its loss falls as far as a single frame allows, and nothing
errors: but an action that is defined by motion cannot be read from one frame, and the
classifier never gets better than guessing what a single still tells.

Reported: "CNN+LSTM for Video Classification" -
https://discuss.pytorch.org/t/cnn-lstm-for-video-classification/185303 (a CNN-LSTM copied
from several tutorials ran ``out, hidden = self.lstm(x.unsqueeze(0))`` inside the loop over
frames; the poster asked whether the result was then "based solely on the last frame", and
the answer agreed the code looked off, the LSTM being called on a single frame instead of
the sequence; the fix is to pass the state on, ``self.lstm(x.unsqueeze(0), hidden)``, or
to run the LSTM once over the stacked frame features). Here: batch 127's synthetic
action videos (_video_clips: a bright square moving in one of four directions at one of
two speeds, 8 classes, nothing in a single frame tells the class), 8 frames of 16x16, a
small per-frame CNN (_vid.FrameEncoder) trained end to end with the LSTM, Adam. Fix: the
state passed to each call.

Measured (400 steps; held-out accuracy, 600 videos, chance 0.125): seed 0, 0.15 for the
bug against 0.99 for the fixed twin; seeds shifted by 1000, 0.12 against 0.82.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._video_clips import CLASSES, accuracy, index_batches, render
from benchmarks.real_bugs._vid import FrameEncoder

TITLE = "CNN+LSTM for Video Classification"
LINK = "https://discuss.pytorch.org/t/cnn-lstm-for-video-classification/185303"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 400
FRAMES, TRAIN, HELD_OUT = 8, 2000, 600


class CNNLSTM(nn.Module):
    def __init__(self, fixed, features=64, hidden=64):
        super().__init__()
        self.fixed = fixed
        self.encoder = FrameEncoder(features)
        self.lstm = nn.LSTM(features, hidden)
        self.head = nn.Linear(hidden, CLASSES)

    def forward(self, clips):                      # clips (batch, 1, time, H, W)
        hidden = None
        for t in range(clips.shape[2]):
            x = self.encoder(clips[:, :, t])
            if self.fixed:
                out, hidden = self.lstm(x.unsqueeze(0), hidden)
            else:      # BUG: the state is returned but never passed to the next call
                out, hidden = self.lstm(x.unsqueeze(0))
        return self.head(out.squeeze(0))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    videos, labels = render(TRAIN, FRAMES, seed=0)
    held_videos, held_labels = render(HELD_OUT, FRAMES, seed=0, held_out=True)
    model = CNNLSTM(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps):
            clips = videos[index][:, None] / 255
            optimizer.zero_grad()
            loss = loss_fn(model(clips), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, held_videos[:, None] / 255, held_labels)
    return mon
