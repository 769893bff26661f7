"""Gatys-style neural style transfer that optimises the image in the network's own
preprocessed range ([-1, 1] here; mean-subtracted 0-255 pixels in the Keras example) and,
every few steps, turns the current image into a displayable snapshot: add the offset back,
rescale, clip. The snapshot is made in place on the very tensor being optimised, so each
"save" moves the image into [0, 1] and clips it; the next steps start from that
contaminated image, the loss jumps up, falls again, and jumps at the next save. The result
is far from stylised. Nothing errors.

Reported: "Incosistent Color Channel Order in examples/neural_style_transfer.py" -
https://github.com/keras-team/keras/issues/3340 (in the thread, a user tracking why the
losses of his port jumped between L-BFGS rounds found his deprocess function changed the
image vector directly - compensating the mean subtraction and clipping - so each round
began from a contaminated x; fixing it brought the losses back to the reference
implementation's). Here: 16 held-out 8x8 digits stylised with diagonal stripes through a
small "pretrained" digit network (benchmarks/real_bugs/_perceptual.py), a snapshot every
25 Adam steps. Fix: deprocess a copy (``image.detach().clone()``).

Measured (300 Adam steps on the pixels, lr 0.02, style weight 10, seed 0): style distance
of the final image 216 for the bug, 4.2 for the fixed twin; content distance 10.1 and 4.6.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._perceptual import (CONTENT_ROWS, STYLE_WEIGHT, Canvas, digits_01,
                                              gram, stripes, style_and_content_distances)

TITLE = "Incosistent Color Channel Order in examples/neural_style_transfer.py"
LINK = "https://github.com/keras-team/keras/issues/3340"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
STEPS = 300
LR = 0.02
SNAPSHOT_EVERY = 25


def deprocess(canvas, fixed):
    """The displayable image in [0, 1] (what the script saves to disk)."""
    image = canvas.image.detach().clone() if fixed else canvas.image.data   # BUG: aliased
    return image.add_(1).div_(2).clamp_(0, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    content = x[-CONTENT_ROWS:]
    canvas = Canvas(content, space="lpips")            # optimised in the net's [-1, 1]
    with torch.no_grad():
        content_target = canvas.net.features(content * 2 - 1)[1]
        style_targets = [gram(f) for f in canvas.net.features(stripes() * 2 - 1)]
    optimizer = torch.optim.Adam([canvas.image], lr=LR)
    snapshots = []
    with nd.watch(canvas, optimizer, **watch) as mon:
        for step in range(steps):
            features = canvas()
            content_loss = F.mse_loss(features[1], content_target)
            style_loss = sum(F.mse_loss(gram(f), t.expand(len(f), -1, -1))
                             for f, t in zip(features, style_targets))
            loss = content_loss + STYLE_WEIGHT * style_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % SNAPSHOT_EVERY == SNAPSHOT_EVERY - 1:
                snapshots.append(deprocess(canvas, fixed))
    mon.style_distance, mon.content_distance = style_and_content_distances(
        canvas.unit_image(), content)
    return mon
