"""Shared pieces of real-bug batch 224 (remote sensing and satellite imagery): synthetic
Sentinel-2 pixels and tiles. Ten bands in wavelength order (B2 B3 B4 B5 B6 B7 B8 B8A B11 B12),
five land-cover classes (water, forest, crop, urban, bare soil) with textbook reflectance
spectra, a per-pixel illumination factor (so brightness alone does not tell crop from forest)
and sensor noise, stored as 16-bit digital numbers (reflectance x 10000) like L2A products.
All random draws come from torch's global generator. Each case keeps its bug in its own
module."""
import torch
from torch import nn
from torch.nn import functional as F

BANDS = ("B2", "B3", "B4", "B5", "B6", "B7", "B8", "B8A", "B11", "B12")
CLASSES = ("water", "forest", "crop", "urban", "bare")
SPECTRA = torch.tensor([                     # surface reflectance, one row per class
    [.060, .050, .030, .020, .015, .012, .010, .010, .005, .003],   # water
    [.030, .050, .030, .080, .250, .300, .320, .330, .150, .070],   # forest
    [.050, .080, .060, .120, .300, .350, .380, .380, .220, .120],   # crop
    [.100, .110, .120, .140, .160, .170, .180, .190, .220, .200],   # urban
    [.120, .150, .190, .220, .250, .270, .280, .290, .350, .300],   # bare soil
])
NOISE = 0.02                                 # reflectance units


def reflectance(labels):
    """Reflectance spectra (..., 10) of pixels whose classes are ``labels`` (...)."""
    illum = 0.6 + 0.8 * torch.rand(labels.shape + (1,))
    return SPECTRA[labels] * illum + NOISE * torch.randn(labels.shape + (len(BANDS),))


def pixels(n):
    """n labelled pixels: digital numbers (n, 10) float32 (reflectance x 10000, clipped at
    0) and classes (n,) int64."""
    y = torch.randint(len(CLASSES), (n,))
    return (reflectance(y) * 10000).clamp(min=0).round(), y


def tiles(n, size=8):
    """n tiles of patchy land cover: digital numbers (n, 10, size, size) and the class map
    (n, size, size) int64 (each class a blob of a few pixels)."""
    field = torch.randn(n, len(CLASSES), size // 2, size // 2)
    field = F.interpolate(field, size=(size, size), mode="bilinear", align_corners=False)
    y = field.argmax(1)
    x = (reflectance(y) * 10000).clamp(min=0).round()
    return x.permute(0, 3, 1, 2).contiguous(), y


def pixel_mlp(bands=len(BANDS), hidden=32, classes=len(CLASSES)):
    return nn.Sequential(nn.Linear(bands, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, classes))


def pixel_fcn(bands=len(BANDS), hidden=32, classes=len(CLASSES)):
    """A per-pixel segmentation network on tiles (1x1 convolutions: the spectra decide)."""
    return nn.Sequential(nn.Conv2d(bands, hidden, 1), nn.ReLU(), nn.Conv2d(hidden, hidden, 1),
                         nn.ReLU(), nn.Conv2d(hidden, classes, 1))


@torch.no_grad()
def accuracy(model, x, y):
    """Held-out (pixel) accuracy of ``model`` on inputs x against classes y."""
    model.eval()
    out = model(x)
    model.train()
    return float((out.argmax(1) == y).float().mean())
