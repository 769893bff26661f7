"""A first image classifier with a hand-written brightness augmentation: a random offset is
added to each training image while it is still the uint8 array an image file gives. NumPy's
uint8 addition wraps modulo 256, so every pixel that the offset pushes past 255 comes back
dark: the brightest pixels - the digit's strokes - turn into the darkest ones, the more the
brighter the offset. Nothing raises, the augmented batches still lie in [0, 1] after the
division by 255, the loss falls, and the network learns from images whose strokes are
half erased or inverted while it is tested on clean ones.

Reported: "Python, OpenCV: Increasing image brightness without overflowing UINT8 array" -
https://stackoom.com/en/question/2YhKJ (a grey image from cv2.imread plus a value: "Every
pixel intensity value higher than 255 becomes a remainder of dividing by 256 ... I am
getting dark instead of completely white"). Here the 8x8 digits stored as 8-bit grey
levels (0-255), each training image brightened by a random offset of 0 to 100 grey levels
with the uint8 addition, divided by 255, and a 64-64-10 MLP trained with Adam (lr 1e-3,
batches of 64, 300 steps); the last 297 digits, never augmented, are held out.

Fix: add the offset in a wider type and clip before going back to uint8
(``np.clip(pixels.astype(np.int16) + offset, 0, 255).astype(np.uint8)``).

Measured (held-out accuracy on 297 clean digits): 0.640 with the bug, 0.835 fixed;
seeds + 1000: 0.630 vs 0.859.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches

TITLE = "Python, OpenCV: Increasing image brightness without overflowing UINT8 array"
LINK = "https://stackoom.com/en/question/2YhKJ"
EXPECTED = ("INPUT_VALUES_WRAPPED_AROUND",)
STEPS = 300
HELD_OUT = 297        # the last rows of the digits, never trained on
MAX_OFFSET = 100      # brightness jitter, in grey levels


def grey_levels():
    """The digits as an 8-bit image file would hold them: a uint8 array of 0..255."""
    x, y = classification()
    return np.round(x.numpy() * 255).astype(np.uint8), y


def brightened(pixels, offsets, fixed):
    """Each image plus its own brightness offset (offsets: uint8, one per image)."""
    if fixed:
        wide = pixels.astype(np.int16) + offsets[:, None].astype(np.int16)
        return np.clip(wide, 0, 255).astype(np.uint8)
    return pixels + offsets[:, None]      # BUG: uint8 + uint8 wraps past 255 to dark


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    pixels, y = grey_levels()
    train_pixels, train_y = pixels[:-HELD_OUT], y[:-HELD_OUT]
    test_x = torch.from_numpy(pixels[-HELD_OUT:].astype(np.float32) / 255)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_pixels), steps, batch_size=64, seed=0):
            rows = index.numpy()
            offsets = rng.integers(0, MAX_OFFSET + 1, len(rows)).astype(np.uint8)
            batch = brightened(train_pixels[rows], offsets, fixed)
            xb = torch.from_numpy(batch.astype(np.float32) / 255)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), train_y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(test_x).argmax(1) == y[-HELD_OUT:])
                                            .float().mean()), 3)
    return mon
