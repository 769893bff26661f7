"""The digits as 2-D point clouds, shared by the point-cloud and set cases (batch 108): each
8x8 digit becomes a set of pixel positions drawn with the pixel's ink as weight, so a model
must read an unordered set of points to tell the digit. Each case keeps its own model,
normalisation and bug; this file holds the data and the batches."""
import torch

from benchmarks.real_bugs._common import classification


def digit_points(generator, points, centre=0.0, axis=2):
    """Each digit as ``points`` (column, row) pixel positions scaled to [0, 1] and moved by
    ``-centre``, drawn with the pixel's ink as weight and jittered by 0.03: x (N, points, 2)
    with ``axis=2``, (N, 2, points) channels-first with ``axis=1``; y (N,) the digit."""
    images, labels = classification()
    picks = torch.multinomial(images + 1e-6, points, replacement=True, generator=generator)
    coords = torch.stack([(picks % 8).float(), (picks // 8).float()], axis) / 7 - centre
    return coords + 0.03 * torch.randn(coords.shape, generator=generator), labels


def cloud_batches(x, y, train, steps, batch, generator, prepare=None):
    """``steps`` (inputs, targets) batches of ``batch`` rows drawn with replacement from the
    first ``train`` rows; ``prepare(inputs)`` applied to each batch's inputs when given."""
    for _ in range(steps):
        index = torch.randint(0, train, (batch,), generator=generator)
        inputs = x[index] if prepare is None else prepare(x[index])
        yield inputs, y[index]
