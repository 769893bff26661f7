"""What the hand-written discrete-latent cases of real-bug batch 316 share: the 8x8 digits
split into a training part and a held-out part, and the held-out measure every run is
scored by (the squared error of the reconstructions decoded from the model's HARD codes, the
discrete tokens a prior or a transformer would later be trained on), so a bug run and its
fixed twin are measured the same way."""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

N_TRAIN = 1400


def digits(images=False):
    """(x_train, x_test): the first 1400 digits for training, the other 397 held out."""
    x, _ = classification(images=images)
    return x[:N_TRAIN], x[N_TRAIN:]


def held_out_mse(reconstruct, x):
    """Mean squared pixel error of ``reconstruct(x)`` (pixels in [0, 1]) under no_grad."""
    with torch.no_grad():
        return F.mse_loss(reconstruct(x), x).item()
