"""The data set's ``__getitem__`` turns the image into a tensor with
``transforms.ToTensor()`` - which already scales 8-bit pixels into [0, 1] - and the
training code divides the batch by 255 once more. The network sees pixels in
[0, 1/255]: behind the first batch-normalised convolution the feature variance falls
below BatchNorm's eps, the first layer's output is squashed towards zero, and Adam's
small steps cannot grow the filters fast enough to recover within the run.

Reported: "Why divide the input image by 255 after the process of
\"transforms.ToTensor\"?" - https://github.com/facebookresearch/InterHand2.6M/issues/110
("Why divide the input image by 255 after the process of transforms.ToTensor? ... This
process takes the pixel value to a very small value between 0 and 1/255. Is there any
reason for this?"; the issue is still open). Here the 8x8 digits as 8-bit pixels,
ToTensor's scaling done by hand (/ 255), then the second / 255 in the training step; a
small CNN with BatchNorm after each convolution, Adam lr 1e-3, batches of 32, held-out
accuracy on 400 digits (prepared the same way). Fix: divide once.

Measured (held-out accuracy, eval mode, bug vs fixed): seed 0: 0.54 vs 0.973;
seeds + 1000: 0.255 vs 0.993.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._prep import accuracy, first_cnn, raw_digits

TITLE = 'Why divide the input image by 255 after the process of "transforms.ToTensor"?'
LINK = "https://github.com/facebookresearch/InterHand2.6M/issues/110"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 200


def to_tensor(pixels):
    """torchvision's ToTensor on 8-bit images: float pixels in [0, 1]."""
    return pixels / 255.0


def prepare(images, fixed):
    images = to_tensor(images)
    if not fixed:
        images = images / 255.0              # BUG when not fixed: scaled a second time
    return images


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = raw_digits(images=True)
    model = first_cnn(batchnorm=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(prepare(xb, fixed)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        mon.held_out_accuracy = accuracy(model, prepare(x_test, fixed), y_test)
    return mon
