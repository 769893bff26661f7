"""Images held as a float array of 0-255 grey levels given to a ToTensor-style conversion
that divides by 255 only for uint8 arrays: the float pixels pass through unscaled, and the
Normalize(0.5, 0.5) written for [0, 1] inputs leaves them in [-1, 509]. The network,
tuned for unit-scale inputs, takes steps hundreds of times too large on its first layer.

Reported: "transforms.ToTensor() for numpy float array in the range of [0.0, 255.0]" -
https://github.com/pytorch/vision/issues/546 ("I had come across a debugging scenario
where the ToTensor() didn't convert the numpy float array in the range of [0.0, 255.0] to
the range [0.0 to 1.0] ... Basically, this API assumes that all the float arrays will
already be in range [0.0 to 1.0]"). Here the digits as float32 grey levels 0-240 (what
``cv2.imread(...).astype(np.float32)`` gives), converted by a function with ToTensor's
rule, normalised with mean 0.5 and std 0.5, and a small convolutional classifier trained
with SGD at 0.05. Fix: scale the float pixels to [0, 1] before the conversion (or keep
them uint8).

Measured (200 steps, 297 held-out digits): the bug's accuracy is 0.54 (its
gradients and activations blow up on the first steps), the fixed twin's 0.88.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "transforms.ToTensor() for numpy float array in the range of [0.0, 255.0]"
LINK = "https://github.com/pytorch/vision/issues/546"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 200
HELD_OUT = 297


def to_tensor(picture):
    """ToTensor's rule for an (H, W, C) array: channels first, and divided by 255 only
    when the array is uint8 (float arrays are assumed to be in [0, 1] already)."""
    tensor = torch.from_numpy(np.ascontiguousarray(picture.transpose(2, 0, 1)))
    return tensor.float().div(255) if picture.dtype == np.uint8 else tensor.float()


def normalise(tensor, mean=0.5, std=0.5):
    return (tensor - mean) / std


def grey_levels(fixed):
    """The digits as (N, 8, 8, 1) pictures of grey levels 0-240."""
    x, y = classification(images=True)
    pictures = (x * 240).round().numpy().transpose(0, 2, 3, 1).astype(np.float32)
    if fixed:
        pictures = pictures / 255          # the fix: [0, 1] floats, as ToTensor expects
    # BUG (fixed=False): float 0-240 pictures, which to_tensor passes through unscaled
    return torch.stack([normalise(to_tensor(picture)) for picture in pictures]), y


def classifier():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = grey_levels(fixed)
    model = classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
