"""A text-line recogniser (CNN then RNN) whose (B, C, H, W) feature map becomes the RNN's
sequence with a plain reshape to (B, W, C * H): without moving the width axis forward
first, "time step" t is the t-th run of C * H numbers in memory, which follows one
channel across rows and columns, not column t of the image. The RNN no longer walks
along the line, and what it reads at a step has nothing to do with the character there.

Reported: "image_ocr bugfix: Add permute layer before RNN" -
https://github.com/keras-team/keras/pull/8047 ("This fixes a bug introduced in #7908,
where the width should be the time dimension when it gets fed into the RNN"; the example's
conv features went into ``Reshape(target_shape=conv_to_rnn_dims)`` without a ``Permute``;
a reviewer: "There is definitely a problem in the model! ... the dimensions are mixed
up"). Here a line of three 8x8 digits side by side (8x24) goes through two conv layers and
a pooling to a (B, 16, 4, 12) map; a GRU runs over the 12 columns and each digit is read
off the GRU's output at its last column. Fix: ``features.permute(0, 3, 1, 2).reshape(B, W,
C * H)``.

Measured (250 steps, 300 lines of held-out digits): the bug reads 0.84 of the digits right
(three times the fixed twin's errors) against 0.95 for the fixed twin.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, train_watched

TITLE = "image_ocr bugfix: Add permute layer before RNN"
LINK = "https://github.com/keras-team/keras/pull/8047"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 250
HELD_OUT = 397
DIGITS = 3
BATCH_SIZE = 32
CHANNELS = 16


def lines(x, y, count, rng):
    """``count`` lines of DIGITS random digits side by side, (count, 1, 8, 8 * DIGITS),
    and their labels (count, DIGITS)."""
    index = torch.from_numpy(rng.integers(0, len(x), (count, DIGITS)))
    images = torch.cat([x[index[:, k]] for k in range(DIGITS)], dim=3)
    return images, y[index]


def batches(x, y, steps, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield lines(x, y, BATCH_SIZE, rng)


class LineReader(nn.Module):
    def __init__(self, permute):
        super().__init__()
        self.permute = permute
        self.encoder = nn.Sequential(nn.Conv2d(1, CHANNELS, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1), nn.ReLU(),
                                     nn.MaxPool2d(2))
        self.rnn = nn.GRU(CHANNELS * 4, 64, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, images):
        features = self.encoder(images)                 # (B, C, H, W)
        b, c, h, w = features.shape
        if self.permute:
            sequence = features.permute(0, 3, 1, 2).reshape(b, w, c * h)
        else:
            sequence = features.reshape(b, w, c * h)    # BUG: width is not the time axis
        states, _ = self.rnn(sequence)                  # (B, W, 64)
        ends = states[:, w // DIGITS - 1::w // DIGITS]  # each digit's last column
        return self.head(ends)                          # (B, DIGITS, 10)


def digit_loss(scores, labels):
    return nn.functional.cross_entropy(scores.reshape(-1, 10), labels.reshape(-1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = LineReader(permute=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, digit_loss,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        images, labels = lines(x[-HELD_OUT:], y[-HELD_OUT:], 300, np.random.default_rng(1))
        mon.accuracy = round(float((model(images).argmax(2) == labels).float().mean()), 3)
    return mon
