"""A CTC recogniser whose frame scores reach ``nn.CTCLoss`` as raw logits: the line that
turned them into log-probabilities was commented out. CTC reads its input as log-
probabilities, so the loss is no longer a likelihood (it starts below zero), and torch's
CTC gradient, written for normalised inputs, pulls the scores towards the blank: the model
learns to emit only blanks while the fixed twin reads 3 lines in 4 exactly
(200 steps).

Reported: "Unintentionally commented-out line in 02-pytorch-asr main_ctc.py?" -
https://github.com/jeremyfix/deeplearning-lectures/issues/22 ("shouldn't it actually be
unpacked_predictions = unpacked_predictions.log_softmax(dim=2) so that you transform the
'logits' to log softmax?"; the author: "Good catch, that's actually a mistake; wrap_ctc is
indeed called before CTCLoss which is itself expecting the log probabilities"). Here a GRU
reads three 8x8 digits side by side, column by column (24 frames of 8 pixels), and CTC
trains it to spell the three labels (blank = 0). Fix: log_softmax over the label axis.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TITLE = "Unintentionally commented-out line in 02-pytorch-asr main_ctc.py?"
LINK = "https://github.com/jeremyfix/deeplearning-lectures/issues/22"
EXPECTED = ("CTC_NOT_LOG_PROBABILITIES",)
STEPS = 200
DIGITS_PER_LINE = 3
BATCH_SIZE = 32


class FrameRecogniser(nn.Module):
    def __init__(self, features=8, hidden=64, labels=11):
        super().__init__()
        self.rnn = nn.GRU(features, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, labels)

    def forward(self, frames):                 # frames: (time, batch, features)
        return self.out(self.rnn(frames)[0])   # (time, batch, labels): logits


def lines(x, y, steps, seed=0):
    """``steps`` batches of three digits written side by side: frames (24, B, 8) (one column
    of pixels per frame) and the three labels shifted by one (0 is CTC's blank)."""
    rng = np.random.default_rng(seed)
    images = x.reshape(-1, 8, 8)
    for _ in range(steps):
        pick = torch.from_numpy(rng.integers(0, len(x), (BATCH_SIZE, DIGITS_PER_LINE)))
        line = torch.cat([images[pick[:, k]] for k in range(DIGITS_PER_LINE)], dim=2)
        yield line.permute(2, 0, 1), y[pick] + 1           # (24, B, 8), (B, 3)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = FrameRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, labels in lines(x, y, steps):
            optimizer.zero_grad()
            scores = model(frames)
            if fixed:
                scores = scores.log_softmax(dim=2)
            # BUG (fixed=False): the log_softmax line is commented out, so CTC takes the raw
            # logits as if they were log-probabilities
            lengths = torch.full((len(labels),), frames.shape[0], dtype=torch.long)
            targets = torch.full((len(labels),), DIGITS_PER_LINE, dtype=torch.long)
            loss = ctc(scores, labels, lengths, targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
