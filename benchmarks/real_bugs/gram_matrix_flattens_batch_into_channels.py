"""A feed-forward style network trained on batches whose Gram matrix is the single-image
recipe ``features.view(a * b, c * d)``, ``torch.mm(F, F.t())``, divided by ``a * b * c * d``
(a = batch size): with a batch of 16 it is one (16 C x 16 C) matrix that correlates every
image's channels with every other image's, not 16 per-image (C x C) matrices. The style
image, repeated to the batch size as usual for a feed-forward style network, gives a
target whose off-diagonal blocks are its own Gram matrix: the loss asks unrelated images
to correlate with each other like the style with itself, and each image's own Gram is
divided by the batch size as well. The loss falls; the outputs are barely stylised.

Reported: "Dose the Gram implementation as the paper" -
https://github.com/enomotokenji/pytorch-Neural-Style-Transfer/issues/2 (the GramMatrix
module views (a * b, c * d): "this make inner product between different images different
channels, but I think the paper use inner product in different channels but in one
image"; the reply: it is right only because a = 1). Here a small convolutional
transformer stylising 8x8 digits with diagonal stripes through the small "pretrained"
digit network of benchmarks/real_bugs/_perceptual.py (content at block 2, style at blocks
1 and 2), batches of 16. Fix: a Gram matrix per image, ``torch.bmm`` on (a, b, c * d),
divided by b * c * d.

Measured (300 Adam steps, 297 held-out digits, per-image style distance read with the
per-position Gram matrix; the unstylised digits are at 22.1): 17.4 for the bug, 2.2 for
the fixed twin (seed 0); seeds + 1000: 17.7 vs 2.8. The bug keeps the content (content
distance 0.06 against the twin's 5.3): it barely changes the digits.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._perceptual import (HELD_OUT, SOURCE_ROWS, digits_01, generator,
                                              pretrained, stripes, style_and_content_distances)

TITLE = "Dose the Gram implementation as the paper"
LINK = "https://github.com/enomotokenji/pytorch-Neural-Style-Transfer/issues/2"
EXPECTED = ("BATCH_SUMMED_INSIDE_LOSS", "LOSS_BROADCAST_OVER_BATCH")
STEPS = 300
BATCH = 16
LR = 3e-3
STYLE_WEIGHT = 5000.0    # the Gram matrix here is divided by the channels too (C = 16, 32)


def gram_matrix(features, fixed):
    a, b, c, d = features.size()
    if fixed:
        flat = features.view(a, b, c * d)
        return torch.bmm(flat, flat.transpose(1, 2)).div(b * c * d)
    flat = features.view(a * b, c * d)          # BUG: every image's channels in one matrix
    return torch.mm(flat, flat.t()).div(a * b * c * d)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    train, held_out = x[SOURCE_ROWS:-HELD_OUT], x[-HELD_OUT:]
    model = generator()
    net = pretrained()
    with torch.no_grad():       # the style image repeated to the batch size
        style_features = net.features(stripes().repeat(BATCH, 1, 1, 1) * 2 - 1)
        style_targets = [gram_matrix(f, fixed) for f in style_features]
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for content, _ in batches(train, train, steps, batch_size=BATCH, seed=0):
            features = net.features(model(content) * 2 - 1)
            with torch.no_grad():
                content_target = net.features(content * 2 - 1)[1]
            style_loss = sum(F.mse_loss(gram_matrix(f, fixed), t)
                             for f, t in zip(features, style_targets))
            loss = F.mse_loss(features[1], content_target) + STYLE_WEIGHT * style_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        stylised = model(held_out)
    mon.style_distance, mon.content_distance = style_and_content_distances(stylised, held_out)
    return mon
