"""A training recipe's learning rate, tuned for a global batch of 512, kept when the batch
is cut to 32 to fit in memory. Each step now averages 16 times fewer samples, so its
gradient is far noisier, while the step length stays the one chosen for the large batch:
SGD with momentum at that rate is thrown about by the noise, the loss climbs back to
chance and the run ends worse than where it started. The linear scaling rule (Goyal et
al. 2017) asks for the rate times 32 / 512.

Reported: "[BUG] Facing nan's during training mobilenetv3_large_100" -
https://github.com/huggingface/pytorch-image-models/issues/814 (losses turn NaN a few
epochs in; the maintainer: "you need to scale the LR down if you scale the batch size down
... usually linear relationship works best. The original hparams were for a global batch
size of 2 * 512 = 1024 (two distributed processes), so with 1 x 256 you are 4x off. .064/4
would be more appropriate"). The same answer in apple/ml-cvnets#2. Here a digits MLP, SGD
with momentum 0.9 at 0.8 - a rate that trains it well at a batch of 512 (training loss
0.002, every digit right) - at a batch of 32. Fix: ``lr = BASE_LR * BATCH / BASE_BATCH``.

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy 0.19 and last-20
training loss 2.11 (2.32 at the start); the fixed twin (0.05) 0.89 and 0.11.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "[BUG] Facing nan's during training mobilenetv3_large_100"
LINK = "https://github.com/huggingface/pytorch-image-models/issues/814"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200
BASE_LR, BASE_BATCH = 0.8, 512     # the recipe's hyper-parameters
BATCH = 32                         # what fits in memory
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    lr = BASE_LR * BATCH / BASE_BATCH if fixed else BASE_LR     # BUG: not rescaled
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, batch_size=BATCH),
                        **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
