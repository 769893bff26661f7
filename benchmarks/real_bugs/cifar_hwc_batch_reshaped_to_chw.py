"""A first CIFAR-10 CNN fed images read channels-last, (N, 32, 32, 3), that the training
function turns into the (N, 3, 32, 32) the convolutions expect with ``reshape`` instead of
a transpose: the reshape keeps the memory order, so every "channel" is a strip of the
picture with red, green and blue interleaved - the CNN trains and is tested on scrambled
images and loses most of what its convolutions could see.

Reported: "2.0-rc1 应用实践中的计算机视觉第二个案例，在数据准备环节数据维度转换成CHW，准确度会有所提高"
("the second computer-vision case of the 2.0-rc1 tutorials: converting the data to CHW when
it is prepared raises the accuracy") - https://github.com/PaddlePaddle/Paddle/issues/29716
(the tutorial's train function "forcibly converts with reshape to (-1, 3, 32, 32)" and its
model reaches only 40%; transposing HWC to CHW first gives about 70%). Here the 8x8 digits
painted in a random colour per image and stored channels-last, the tutorial's
three convolutions with two poolings (here a global-average-pooled head) and Adam (lr 1e-3), 200 steps of 32. Fix:
``permute(0, 3, 1, 2)``.

Measured (held-out accuracy on 400 digits, bug vs fixed): seed 0: 0.86 vs 0.93;
seeds + 1000: 0.90 vs 0.94.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_cls import accuracy, split_digits
from benchmarks.real_bugs._common import batches

TITLE = ("2.0-rc1 应用实践中的计算机视觉第二个案例，在数据准备环节数据维度转换成CHW，"
         "准确度会有所提高")
LINK = "https://github.com/PaddlePaddle/Paddle/issues/29716"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE", "LAYOUT_NOT_TRANSPOSED")
STEPS = 200


def convnet():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def to_chw(images, fixed):
    if fixed:
        return images.permute(0, 3, 1, 2)
    return images.reshape(-1, 3, 8, 8)           # BUG: a reshape is not a transpose


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits(images=True)
    colour = 0.3 + 0.7 * torch.rand(len(x) + len(x_test), 1, 1, 3)
    hwc = torch.cat([x, x_test]).squeeze(1).unsqueeze(-1) * colour    # (N, 8, 8, 3)
    hwc = (hwc - 0.5) / 0.5
    train_hwc, test_hwc = hwc[:len(x)], hwc[len(x):]
    model = convnet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_hwc, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(to_chw(xb, fixed)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, to_chw(test_hwc, fixed), y_test)
    return mon
