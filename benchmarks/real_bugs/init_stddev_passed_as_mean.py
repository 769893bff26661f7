"""The layers' weight initialiser is given its standard deviation in the mean's place:
``normal_(weight, stddev)`` reads as N(mean=stddev, std=1). Every weight is drawn with a
standard deviation of 1 instead of 0.02, fifty times too wide: a unit summing 144 inputs
starts with pre-activations twelve times larger than its inputs', the logits come out in the
thousands, and the loss starts near 1,500 (ln(10) is 2.3) and is still far above the fixed
twin's at the end of the run.

Reported: "random_normal_initializer is wrong for both conv and dense" -
https://github.com/aiUIUC/pyAIUtils/issues/25 ("we are initializing the weights by
``w_init = tf.random_normal_initializer(stddev)`` but the first argument should be mean ...
so it should be updated to ``tf.random_normal_initializer(0.0, stddev)``"; the author: "Oh
man. My bad."). ``torch.nn.init.normal_(tensor, mean=0.0, std=1.0)`` takes its arguments in
the same order, so the same slip reads the same way in torch; here a small conv net of the
8x8 digits initialised so. Fix: ``nn.init.normal_(weight, 0.0, stddev)`` (or ``std=stddev``).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "random_normal_initializer is wrong for both conv and dense"
LINK = "https://github.com/aiUIUC/pyAIUtils/issues/25"
EXPECTED = ("INIT_SCALE_TOO_LARGE", "SATURATED_ACTIVATIONS", "EXPLODING_GRADIENTS",
            "LOSS_EXPLOSION")
STEPS = 150
STDDEV = 0.02


def init_weights(module, fixed):
    if isinstance(module, (nn.Conv2d, nn.Linear)):
        if fixed:
            nn.init.normal_(module.weight, 0.0, STDDEV)
        else:
            nn.init.normal_(module.weight, STDDEV)       # BUG: STDDEV lands in the mean's place
        nn.init.zeros_(module.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, 16, kernel_size=3, padding=1), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(16 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))
    model.apply(lambda module: init_weights(module, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
