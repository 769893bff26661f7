"""A CNN-RNN clip classifier whose per-frame features, (batch, time, features), are put into
the sequence-first order the LSTM expects with ``.view(time, batch, features)`` instead of
``.transpose(0, 1)``. The shapes agree, nothing errors, but view only re-reads the memory:
the "sequence" of sample b is made of frames of other samples (rows t*B + b of the flat
frame list), so the last step the classifier reads belongs to a different clip than the
label. The loss hardly falls and the model learns little of the clips.

Reported: "Possible bug in DecoderRNN class" -
https://github.com/HHTseng/video-classification/issues/42 (a user whose ResNetCRNN failed to
use the clips' time axis reordered the LSTM input to (time, batch, features) with
``x_RNN.view(self.h_RNN, x_RNN.size(0), ...)``; another showed on a 2x5 example that view
regroups the numbers while ``transpose(0, 1)`` moves the axes, and that the fix is
``x_RNN.transpose(0, 1)`` before the LSTM; the repository's own LSTM was batch-first, the view
was the user's change). Here: "clips" of four jittered, noisy views of
one 8x8 digit (benchmarks/real_bugs/_future_leaks.py, 1,500 for training, the rest held out),
a per-frame MLP encoder, a sequence-first LSTM, a linear classifier on its last step, Adam.
Fix: ``feats.transpose(0, 1)``.

Measured (800 steps, batch 32; held-out clip accuracy on 288 clips, scored in batches of 32
as trained): seed 0, 0.069 for the bug against 0.88 for the fixed twin; seeds shifted by 1000,
0.073 against 0.91.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches
from benchmarks.real_bugs._future_leaks import jittered_clips

TITLE = "Possible bug in DecoderRNN class"
LINK = "https://github.com/HHTseng/video-classification/issues/42"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE", "BATCH_MIXING")
STEPS = 800
FRAMES = 4


class ClipClassifier(nn.Module):
    def __init__(self, fixed, dim=64, hidden=64):
        super().__init__()
        self.fixed = fixed
        self.encode = nn.Sequential(nn.Linear(64, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU())
        self.lstm = nn.LSTM(dim, hidden)              # sequence first: (time, batch, features)
        self.out = nn.Linear(hidden, 10)

    def forward(self, clips):                         # (B, T, 64)
        b, t, _ = clips.shape
        feats = self.encode(clips)                    # (B, T, dim)
        if self.fixed:
            seq = feats.transpose(0, 1)
        else:
            seq = feats.view(t, b, -1)                # BUG: regroups, does not move the axes
        h, _ = self.lstm(seq)
        return self.out(h[-1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(rng.permutation(len(x)))
    x, y = x[order].reshape(-1, 8, 8), y[order]
    clips, labels = jittered_clips(x, y, FRAMES, rng)
    train_x, train_y = clips[:1500], labels[:1500]
    test_x, test_y = clips[1500:], labels[1500:]
    model = ClipClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_x), steps, 32, seed=0):
            loss = nn.functional.cross_entropy(model(train_x[index]), train_y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        # scored in batches of 32, as trained (one batch of 297 would mix other clips)
        correct = 0
        for start in range(0, len(test_x) - 31, 32):
            guess = model(test_x[start:start + 32]).argmax(-1)
            correct += (guess == test_y[start:start + 32]).sum().item()
        mon.held_out_accuracy = correct / ((len(test_x) // 32) * 32)
    return mon
