"""The x2 super-resolver two real-bug cases share (batch 105): 4x4 digits up to 8x8 as
bilinear upsampling plus a learned residual, the usual shape of a super-resolution network
(VDSR, ESPCN's sub-pixel convolution). Each case keeps its own bug (the optimizer, the
training degradation)."""
from torch import nn
from torch.nn import functional as F


class SuperResolver(nn.Module):
    """Bilinear x2 upsampling plus a learned residual (sub-pixel convolution)."""

    def __init__(self):
        super().__init__()
        self.residual = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
            nn.ReLU(), nn.Conv2d(32, 4, 3, padding=1), nn.PixelShuffle(2))

    def forward(self, low):
        return bilinear(low) + self.residual(low)


def bilinear(low):
    """The fixed path: x2 bilinear upsampling."""
    return F.interpolate(low, scale_factor=2, mode="bilinear", align_corners=False)


def downsampled(sharp):
    """The plain degradation: 2x2 averaging."""
    return F.avg_pool2d(sharp, 2)
