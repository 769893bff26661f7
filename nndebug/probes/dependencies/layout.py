"""INPUT_LAYOUT_SCRAMBLED: channels-last images reshaped, not permuted, into channels-first.

Images are often stored (batch, height, width, channels) - PIL, NumPy, TensorFlow - while a
``Conv2d`` wants (batch, channels, height, width). ``x.permute(0, 3, 1, 2)`` moves the
channels; ``x.reshape(B, 3, H, W)`` (or ``.view``) keeps the memory order and only relabels
it: each "channel" the network sees is then a third of the picture, with red, green and
blue values interleaved along its rows. Training still runs, on a scrambled picture.

How it is seen, from the batch alone: natural images are smooth, so a pixel correlates
strongly with its neighbours along H and W within a channel. The batch is read as it is
given, and once more with the suspected reshape undone (``x.reshape(B, H, W, C)`` moved to
channels-first). A correct batch is smooth as given and rough once "undone" (its neighbours
then lie C pixels apart); a scrambled one is rough as given (neighbours along W change
colour, neighbours along H lie W/C pixels apart) and smooth once undone. Only a clear
reversal is named, so noise, grayscale images, one-channel spectrograms and other 4-D
inputs stay silent. A few images suffice: the check costs a few tens of microseconds.
"""
import numpy as np

from ...findings import Finding

MAX_CHANNELS = 4
"""Colour images have 2 to 4 channels (grey + alpha, RGB, RGBA); with one channel a reshape and
a permute agree, and many channels mean feature maps, not pixels."""
MIN_SIDE = 4
"""Height and width of at least 4 pixels: a (B, T, F, 1) table is no image."""
MIN_SMOOTHNESS = 0.4
"""The batch with the reshape undone must look like an image: a neighbour correlation of at
least 0.4. Measured (``smoothness``): the 8x8 colour digits of the real-bug case 0.58,
blurred 32x32 colour noise 0.90, white noise 0.0; scrambled batches, undone, give back
their images' value."""
MIN_GAIN = 0.2
"""...and be smoother than the batch as given by at least 0.2. Measured: scrambled digits
0.26 as given against 0.58 undone (gain 0.32), scrambled blurred colour noise 0.44 against
0.90 (gain 0.46; 0.0 against 0.9 when the colours are independent); correct batches lose
instead (digits 0.58 as given, 0.09 undone: gain -0.49; blurred noise 0.90 against 0.51:
gain -0.39)."""
MAX_VALUES = 1 << 12
"""Values read (whole images, at least one): about 4,000 pairs per correlation, which pins
it to within a few hundredths - far inside the margins above - at a cost of microseconds."""
WINDOW = 32
"""Neighbour correlations are read in the top-left 32x32 window of each channel."""


def probe_input_layout(x):
    """[INPUT_LAYOUT_SCRAMBLED] or []: ``x`` a NumPy batch, read as (B, C, H, W)."""
    if not _looks_like_images(x):
        return []
    channels, height, width = x.shape[1:]
    kept = x[:images_read(x.shape)]
    undone = kept.reshape(len(kept), height, width, channels).transpose(0, 3, 1, 2)
    as_given, if_undone = smoothness(kept), smoothness(undone)
    if if_undone < MIN_SMOOTHNESS or if_undone - as_given < MIN_GAIN:
        return []
    return [_finding(x.shape, as_given, if_undone)]


def images_read(shape):
    """How many images of a (B, C, H, W) batch the check reads: ``MAX_VALUES`` worth."""
    per_image = int(shape[1]) * int(shape[2]) * int(shape[3])
    return max(1, min(int(shape[0]), MAX_VALUES // max(1, per_image)))


def _looks_like_images(x):
    return isinstance(x, np.ndarray) and x.ndim == 4 and x.dtype.kind == "f" and \
        2 <= x.shape[1] <= MAX_CHANNELS and min(x.shape[2:]) >= MIN_SIDE and x.shape[0] >= 1


def smoothness(images):
    """Mean of the lag-1 correlations along W and along H of a ``WINDOW`` x ``WINDOW`` corner
    of the images (0 for constant images). Read on the flattened, standardised window, so
    two dot products do it (a few microseconds): the pairs that straddle a row's end or a
    channel plane's seam (1/W and 1/H of them) are counted too, which blurs the
    correlations a little and moves neither side of the comparison more than the other."""
    window = images[:, :, :WINDOW, :WINDOW]
    width = window.shape[3]
    flat = np.array(window, dtype=np.float64).ravel()     # a contiguous copy of its own
    flat -= flat.sum() / flat.size                      # (sum: a few us less than mean)
    power = float(flat @ flat)
    if not power > 0 or not np.isfinite(power):
        return 0.0
    return float(flat[:-1] @ flat[1:] + flat[:-width] @ flat[width:]) / (2 * power)


def _finding(shape, as_given, if_undone):
    batch, channels, height, width = (int(s) for s in shape)
    return Finding(
        "INPUT_LAYOUT_SCRAMBLED", "warning", "",
        message=f"the input images {tuple(int(s) for s in shape)} are not smooth as given "
                f"(neighbouring pixels correlate {as_given:.2f}) but are once read as "
                f"channels-last data reshaped to channels-first ({if_undone:.2f}): the batch "
                f"looks like (B, {height}, {width}, {channels}) images turned into "
                f"(B, {channels}, {height}, {width}) with reshape or view, which keeps the "
                "memory order - each channel the network sees is a strip of the picture with "
                "its colours interleaved along the rows",
        evidence={"shape": [batch, channels, height, width],
                  "neighbour_correlation_as_given": as_given,
                  "neighbour_correlation_reshape_undone": if_undone,
                  "meaning": "mean lag-1 correlation along H and W within channels, for the "
                             "batch as given and for x.reshape(B, H, W, C).permute(0, 3, 1, 2)"},
        fix="use .permute(0, 3, 1, 2) (not reshape/view) to move channels first (or "
            "torchvision's ToTensor, which does it)")
