"""Pieces the hand-built vision-transformer reports share (kept small: each case shows its
bug): an image batch cut into square patches the standard way, and a small pre-norm
transformer encoder over the patch tokens."""
from torch import nn


def patches(images, size):
    """(B, C, H, W) -> (B, (H / size) * (W / size), C * size * size): one row per square
    patch, row by row over the grid, each row holding its patch's pixels channel by
    channel (the axes moved with a permute before they are merged)."""
    b, c = images.shape[:2]
    grid = images.unfold(2, size, size).unfold(3, size, size)     # (B, C, h, w, p, p)
    return grid.permute(0, 2, 3, 1, 4, 5).reshape(b, -1, c * size * size)


def encoder(dim, depth=2, heads=4):
    """``depth`` pre-norm transformer layers over batch-first tokens of width ``dim``."""
    layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True,
                                       norm_first=True)
    return nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
