"""Per-image centring and scaling taken over the channel axis of a one-channel image: the
mean over one channel is the pixel itself, so every pixel becomes 0 and every image the
same blank array. The network trains on nothing but the label counts.

Reported: "ImageDataGenerator samplewise_center standardize method subtracting mean over
image channels" - https://github.com/keras-team/keras/issues/2559 ("if the input image has
only one channel (gray scale image), after performing x -= np.mean(x,
axis=img_channel_index, keepdims=True) The image will be all 0!"; a later comment: "It
took me quite a while to figure out how come my model is not learning anything... Zeros,
zeros everywhere."). Here the 8x8 digits as (1, 8, 8) images, standardised one by one the
way the generator did (mean and std over the channel axis, std + 1e-7), then a small
convolutional classifier. Fix: the mean and std over the whole image (all axes).

Measured (200 steps, 297 held-out digits): the bug's accuracy is 0.10 (one class for
every input), the fixed twin's 0.92.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("ImageDataGenerator samplewise_center standardize method subtracting mean over "
         "image channels")
LINK = "https://github.com/keras-team/keras/issues/2559"
EXPECTED = ("CONSTANT_INPUTS",)
STEPS = 200
HELD_OUT = 297
CHANNEL_AXIS = 0        # of one (C, H, W) image


def samplewise_standardised(image, fixed):
    """One image centred and scaled by its own statistics, as the generator's standardize."""
    # BUG (fixed=False): statistics over the channel axis - for one channel, the pixel itself
    axes = (0, 1, 2) if fixed else CHANNEL_AXIS
    image = image - image.mean(dim=axes, keepdim=True)
    return image / (image.std(dim=axes, keepdim=True, unbiased=False) + 1e-7)


def classifier():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x = torch.stack([samplewise_standardised(image, fixed) for image in x])
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
