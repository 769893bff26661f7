"""A small vision transformer written by hand for the batch-174 reports (kept small: each
case shows its bug): the 8x8 digits cut into 2x2 patches, a class token, pre-norm blocks
with hand-written multi-head attention, read at the class token; the position table is the
case's to give."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

PATCH = 2
HELD_OUT = 384
BATCH_SIZE = 64


def patchify(images, size):
    """(B, C, H, W) -> (B, patches, C * size * size): square patches row by row, the grid
    axes moved in front of the pixel axes before they are merged."""
    b, c, h, w = images.shape
    grid = images.reshape(b, c, h // size, size, w // size, size)
    return grid.permute(0, 2, 4, 1, 3, 5).reshape(b, -1, c * size * size)


def sincos_2d(dim, side):
    """The fixed 2-D sine-cosine table of MAE/DiT: half the width encodes the row, half
    the column, for a ``side`` x ``side`` grid; (side * side, dim)."""
    def one_axis(width, positions):
        omega = 1.0 / 10000 ** (np.arange(width // 2) / (width / 2))
        angles = np.outer(positions, omega)
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    rows, cols = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    table = np.concatenate([one_axis(dim // 2, rows.ravel()), one_axis(dim // 2, cols.ravel())],
                           axis=1)
    return torch.tensor(table, dtype=torch.float32)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        weights = (q @ k.transpose(-1, -2) * self.head_dim ** -0.5).softmax(dim=-1)
        return self.out((weights @ v).transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    """``pos``: a (1, patches + 1, dim) Parameter the caller builds (learned or fixed), or
    None for the learned default; ``block``: what builds a layer from (dim, heads), the
    hand-written pre-norm block by default. ``place`` adds the positions and ``read`` turns the final tokens into logits
    (a subclass may pool them otherwise)."""

    def __init__(self, pos=None, dim=32, depth=2, heads=4, block=None, tokens=16):
        super().__init__()
        self.embed = nn.Linear(PATCH * PATCH, dim)
        self.class_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02) if pos is None else pos
        self.blocks = nn.ModuleList((block or Block)(dim, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, images):
        tokens = self.embed(patchify(images, PATCH))
        cls = self.class_token.expand(len(tokens), -1, -1)
        x = self.place(torch.cat([cls, tokens], dim=1))
        for block in self.blocks:
            x = block(x)
        return self.read(x)

    def place(self, x):
        """Add the position embedding to the (batch, 1 + patches, width) tokens."""
        return x + self.pos

    def read(self, x):
        return self.head(self.norm(x)[:, 0])


def digits(seed):
    """Train and held-out digits; which ``HELD_OUT`` rows are held out depends on the seed."""
    x, y = classification(images=True)
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    test, train = order[:HELD_OUT], order[HELD_OUT:]
    return x[train], y[train], x[test], y[test]


def train(model, optimizer, x, y, steps, seed, watch):
    """The ordinary loop under ``nd.watch``; the monitor comes back."""
    import nndebug as nd
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH_SIZE, seed):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def accuracy(model, x, y, batch_size=None):
    """Held-out accuracy, in batches of ``batch_size`` when given (all at once if not)."""
    with torch.no_grad():
        size = batch_size or len(x)
        right = sum(int((model(xb).argmax(1) == yb).sum())
                    for xb, yb in zip(x.split(size), y.split(size)))
    return round(right / len(x), 3)
