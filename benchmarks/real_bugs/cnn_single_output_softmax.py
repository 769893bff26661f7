"""A binary image classifier whose last layer is ONE unit followed by a softmax: a softmax
over a single number is exp(z) / exp(z) = 1 whatever z is, so every image is predicted
positive, the loss never changes and no gradient reaches the network.

Reported: "Convolutional neural network fails even when given answer" -
https://stats.stackexchange.com/questions/481881 (a Keras CNN ending in
``Dense(1, activation='softmax')`` predicted "true for everything regardless of input",
even when the answer was copied into the input; the answer: the softmax normalises over
the layer's outputs, and with one output that is always 1 - use a sigmoid for one unit,
or two units with a softmax). Reproduced in torch: a small CNN on the 8x8 digits decides
"digit >= 5" with ``Linear(512, 1)`` and ``Softmax(dim=1)`` before ``BCELoss``. Fix: a
sigmoid on the single unit.

Measured (200 steps, the 397 held-out digits): the bug's accuracy 0.50 (every digit called
positive; the loss stays at 100 x the batch's share of negatives, as BCELoss clamps log(0)
to -100) against 0.93 for the fixed twin.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, binary, train_watched

TITLE = "Convolutional neural network fails even when given answer"
LINK = "https://stats.stackexchange.com/questions/481881"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 200
HELD_OUT = 397


def classifier(squash):
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(32 * 16, 1), squash)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    x = x.reshape(-1, 1, 8, 8)
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT].unsqueeze(1)
    # BUG (fixed=False): a softmax over the one output unit is always 1
    model = classifier(nn.Sigmoid() if fixed else nn.Softmax(dim=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.BCELoss(), batches(train_x, train_y, steps),
                        **watch)
    with torch.no_grad():
        guess = model(x[-HELD_OUT:]).squeeze(1) > 0.5
        mon.accuracy = round(float((guess.float() == y[-HELD_OUT:]).float().mean()), 3)
    return mon
