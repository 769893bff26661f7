"""A colorization network fed the L channel of Lab as it comes out of the conversion, 0 to
100, while its targets (a and b / 128) and its tanh head live in [-1, 1]. The first layer's
pre-activations are a hundred times the size they would be for inputs near one, and so are
the head's: at the start about 70% of its tanh outputs here sit beyond 0.99, where the
gradient has all but vanished, and the network learns little more than predicting grey.

Reported: "[Autoencoder] Scaling L Channel for Image Colorization" -
https://github.com/bnsreenu/python_for_microscopists/issues/6 ("Don't we need to divide L
channel by 100 since original values vary between 0 to 100?"; the author: "Yes, dividing L
channel by 100 can help speedup the training process ... I do recommend scaling as it is a
good practice. Thanks for catching my bad habit"). The tutorial script feeds
``rgb2lab(img)[:, :, 0]`` to a conv autoencoder ending in tanh, targets ``lab[:, :, 1:] /
128``, Adam with Keras' defaults, mean-squared error. Here the 8x8 digits painted in a colour
per class on black, converted to Lab; an MLP with a tanh head reads L and predicts a/b / 128,
Adam (lr 1e-3), mean-squared error. Fix: L / 100 (training and held-out inputs alike).

Measured (held-out a/b mean absolute error, Lab units, lower is
better): 18.48 with the bug, 10.23 fixed; seeds + 1000: 19.97 vs 10.31
(predicting grey everywhere: 19.1).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._colour349 import ab_error, colour_digits, split
from benchmarks.real_bugs._common import index_batches

TITLE = "[Autoencoder] Scaling L Channel for Image Colorization"
LINK = "https://github.com/bnsreenu/python_for_microscopists/issues/6"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 400
AB_SCALE = 128.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    L, ab, _ = colour_digits()
    L = L / 100 if fixed else L                    # BUG: L left in 0..100
    (l_train, ab_train), (l_test, ab_test) = split(L, ab / AB_SCALE)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.Tanh())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(l_train), steps, batch_size=32, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(l_train[index]), ab_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_ab_error = ab_error(model(l_test) * AB_SCALE, ab_test * AB_SCALE)
    return mon
