"""Pieces real-bug batch 177 (image restoration written by hand) shares: the 8x8 digits as
(N, 1, 8, 8) images in [0, 1] split into training and held-out images, and a small
convolutional autoencoder with a 2x2-pooled bottleneck and a transposed-convolution
decoder. Each case keeps its own bug."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 512


def images():
    """Training and held-out digit images, (N, 1, 8, 8) in [0, 1]."""
    x, _ = classification(images=True)
    return x[:-HELD_OUT], x[-HELD_OUT:]


def image_batches(x, steps, batch_size=64, seed=0):
    """``steps`` shuffled mini-batches of images, reshuffled every epoch."""
    from benchmarks.real_bugs._common import index_batches
    for index in index_batches(len(x), steps, batch_size, seed):
        yield x[index]


class ConvAutoencoder(nn.Module):
    """8x8 -> 4x4 (16 channels) -> 8x8 through a stride-2 transposed convolution; ``head``
    is what comes after the last layer (identity by default)."""

    def __init__(self, in_channels=1, width=16, head=None):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(width, width, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(width, 1, 3, padding=1))
        self.head = head if head is not None else nn.Identity()

    def forward(self, x):
        return self.head(self.decoder(self.encoder(x)))


def feature_network(x, y, steps=300):
    """A small convolutional digit classifier trained for ``steps`` steps (0: left at its
    random initialisation), then frozen: the batch's 'pretrained VGG'."""
    import torch.nn.functional as F
    from benchmarks.real_bugs._common import index_batches
    net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(32 * 16, 10))
    if steps:
        opt = torch.optim.Adam(net.parameters(), lr=3e-3)
        for index in index_batches(len(x), steps, 64, seed=1):
            opt.zero_grad()
            F.cross_entropy(net(x[index]), y[index]).backward()
            opt.step()
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval()


def damaged(x):
    """The image with its bottom-right quarter blanked out (what the restorer fills in)."""
    out = x.clone()
    out[:, :, 4:, 4:] = 0
    return out
