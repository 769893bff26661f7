"""SpecAugment (random time and frequency masks on the mel spectrogram) left on for the
validation batches: the feature pipeline augments whatever passes through it, training or
not. Each validation clip loses a random band and a random stretch of frames, so the
validation loss and accuracy measure the network on damaged inputs, vary from one check to
the next, and sit well below what the network does on real clips; early stopping, learning
rate schedules and model selection all read that number. Training itself is untouched, so
nothing looks wrong in the training curve.

Reported: "Melspectrogram augmentations during validation" -
https://github.com/MTG/omar-rq/issues/16 ("During validation currently the mel spectrograms
are going through specaugment"; closed once the augmentation was restricted to training).
Fix: apply the masks in training steps only; validate on the clean spectrograms.

Here 6 keywords, each two time-frequency blobs on a 16-band x 24-frame log spectrogram
with noise; SpecAugment with two frequency masks (up to 5 bands) and two time masks (up to
8 frames) on the training batches and, in the bug, on the validation set as well; a small
CNN; Adam; a validation check every 25 steps reported as `val_loss`.
**Measured** (this script, 300 steps): the harm is to the validation signal, not to the
weights (training is the same in both runs): the last validation check reports accuracy
0.88 for the bug against 1.00 for the fixed twin at seed 0, while both networks get 1.00 of
the clean held-out clips; with every seed shifted by 1000, 0.86 against 1.00 reported, 1.00
and 1.00 held out. A schedule or early stop reading the bug's number acts on a 12-14 point
error.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Melspectrogram augmentations during validation"
LINK = "https://github.com/MTG/omar-rq/issues/16"
EXPECTED = ("VALIDATION_INPUTS_AUGMENTED",)
STEPS = 300
CLASSES, BANDS, FRAMES, BATCH, CHECK_EVERY = 6, 16, 24, 32, 25


def clips(n, words, rng):
    """``n`` log spectrograms (n, BANDS, FRAMES) and their keywords (n,)."""
    classes = rng.integers(0, CLASSES, n)
    x = words[classes] + 0.7 * rng.standard_normal((n, BANDS, FRAMES))
    return (torch.from_numpy(x.astype(np.float32)),
            torch.from_numpy(classes.astype(np.int64)))


def spec_augment(x, generator):
    """Two frequency masks (up to 5 bands) and two time masks (up to 8 frames) per clip."""
    x = x.clone()
    for row in x:
        for axis, widest in ((0, 5), (1, 8)):
            for _ in range(2):
                width = int(torch.randint(0, widest + 1, (), generator=generator))
                start = int(torch.randint(0, row.shape[axis] - width + 1, (),
                                          generator=generator))
                if axis == 0:
                    row[start:start + width, :] = 0.0
                else:
                    row[:, start:start + width] = 0.0
    return x


class KeywordNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(2),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(16 * (BANDS // 2) * (FRAMES // 2), CLASSES)

    def forward(self, x):
        return self.head(self.features(x.unsqueeze(1)).flatten(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    generator = torch.Generator().manual_seed(0)
    words = np.zeros((CLASSES, BANDS, FRAMES))
    for word in words:                       # two time-frequency blobs per keyword
        for _ in range(2):
            b, f = rng.integers(0, BANDS - 3), rng.integers(0, FRAMES - 4)
            word[b:b + 3, f:f + 4] += 1.0
    x, y = clips(3000, words, rng)
    val_x, val_y = clips(500, words, rng)
    test_x, test_y = clips(1000, words, rng)
    model = KeywordNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    reported = []
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(1, steps + 1):
            rows = torch.from_numpy(rng.integers(0, len(x), BATCH))
            loss = nn.functional.cross_entropy(model(spec_augment(x[rows], generator)),
                                               y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % CHECK_EVERY == 0:
                # BUG: the validation spectrograms go through SpecAugment too
                inputs = val_x if fixed else spec_augment(val_x, generator)
                with torch.no_grad():
                    logits = model(inputs)
                    val_loss = nn.functional.cross_entropy(logits, val_y)
                reported.append((logits.argmax(-1) == val_y).float().mean().item())
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        mon.held_out_accuracy = (model(test_x).argmax(-1) == test_y).float().mean().item()
    mon.reported_validation_accuracy = reported[-1]
    return mon
