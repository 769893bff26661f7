"""A CNN's (B, C, H, W) feature map turned into one feature vector per pixel with
``view(B, H * W, C)`` instead of a permute: the view keeps memory order, so "pixel" i
gets C consecutive numbers of one channel's map (neighbouring positions), not the C
channels at one position. The attention over pixels that follows weighs vectors that no
longer describe a place, and what it learns is tied to where the object sits.

Reported: "the dimension of enc_image is right?" -
https://github.com/fawazsammani/knowing-when-to-look-adaptive-attention/issues/6
(``encoded_image = self.resnet(images)  # (batch_size,2048,7,7)``, then
``encoded_image.view(batch_size,num_pixels,features)``: "you should permute the axises
first, and then apply the view function"; the author: "you are right ... What's happening
is the features are acting as pixels", and retrained). Here a small CNN reads an 8x8 digit
placed anywhere on a 16x16 canvas and gives a (B, 32, 8, 8) map; a Linear scores each
pixel's vector for 4 glimpses, the softmax over pixels weighs the vectors (soft
attention), and the 4 weighted sums are classified. Fix:
``features.permute(0, 2, 3, 1).reshape(B, H * W, C)``.

Measured (250 steps, the 397 held-out digits at random places): the bug's accuracy 0.35
against 0.88 for the fixed twin.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, train_watched

TITLE = "the dimension of enc_image is right?"
LINK = "https://github.com/fawazsammani/knowing-when-to-look-adaptive-attention/issues/6"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 250
HELD_OUT = 397
CANVAS = 16
CHANNELS = 32
GLIMPSES = 4
BATCH_SIZE = 64


def placed(digits, rng):
    """The (N, 1, 8, 8) digits, each pasted at a random place of an empty canvas."""
    canvas = torch.zeros(len(digits), 1, CANVAS, CANVAS)
    for i, (top, left) in enumerate(rng.integers(0, CANVAS - 8 + 1, (len(digits), 2))):
        canvas[i, 0, top:top + 8, left:left + 8] = digits[i, 0]
    return canvas


def scenes(x, y, steps, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        index = torch.from_numpy(rng.integers(0, len(x), BATCH_SIZE))
        yield placed(x[index], rng), y[index]


class AttentionClassifier(nn.Module):
    def __init__(self, permute):
        super().__init__()
        self.permute = permute
        self.encoder = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Conv2d(16, CHANNELS, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1), nn.ReLU())
        self.score = nn.Linear(CHANNELS, GLIMPSES)
        self.head = nn.Linear(GLIMPSES * CHANNELS, 10)

    def forward(self, images):
        features = self.encoder(images)                    # (B, C, H, W)
        b, c, h, w = features.shape
        if self.permute:
            pixels = features.permute(0, 2, 3, 1).reshape(b, h * w, c)
        else:
            pixels = features.view(b, h * w, c)            # BUG: channels read as pixels
        weights = torch.softmax(self.score(pixels), dim=1)  # (B, H * W, GLIMPSES)
        glimpses = torch.einsum("bpg,bpc->bgc", weights, pixels)
        return self.head(glimpses.reshape(b, -1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = AttentionClassifier(permute=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        scenes(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess = model(placed(x[-HELD_OUT:], np.random.default_rng(1))).argmax(1)
        mon.accuracy = round(float((guess == y[-HELD_OUT:]).float().mean()), 3)
    return mon
