"""Gatys-style neural style transfer with L-BFGS, the image's pixels clamped to [0, 1] in
place at the top of every closure call. L-BFGS calls the closure many times per step - for
its line search and to build its curvature estimate - and assumes the point it evaluates
is the point it chose; the clamp moves the image under it, so the gradients and losses it
pairs with its steps belong to other images. Its line search and history go wrong and the
optimisation stops far above the loss the unclamped run reaches. Nothing errors.

Reported: "Neural Style: Clamping image during optimization causes exploding gradient" -
https://github.com/pytorch/tutorials/issues/143 (with the neural style tutorial's clamp
inside the optimisation the losses blew up after some hundreds of iterations; moving the
clamp out of the optimisation - to display time - gave a steadily falling loss; others in
the thread hit the same). Here: 16 held-out 8x8 digits stylised with diagonal stripes
through a small "pretrained" digit network (benchmarks/real_bugs/_perceptual.py), content
at block 2, style at blocks 1 and 2. Fix: clamp once, after the optimisation.

Measured (30 L-BFGS steps of up to 20 evaluations, style weight 10, seed 0): the
optimiser's loss stalls at 35.8 for the bug, 5.6 for the fixed twin; the clamped final
images' style distance 2.87 and 1.80, content distance 7.1 and 5.4.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._perceptual import (CONTENT_ROWS, STYLE_WEIGHT, Canvas, digits_01,
                                              gram, stripes, style_and_content_distances)

TITLE = "Neural Style: Clamping image during optimization causes exploding gradient"
LINK = "https://github.com/pytorch/tutorials/issues/143"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
STEPS = 30


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    content = x[-CONTENT_ROWS:]
    canvas = Canvas(content)
    with torch.no_grad():
        content_target = canvas.net.features(content * 2 - 1)[1]
        style_targets = [gram(f) for f in canvas.net.features(stripes() * 2 - 1)]
    optimizer = torch.optim.LBFGS([canvas.image])

    def closure():
        if not fixed:
            canvas.image.data.clamp_(0, 1)            # BUG: moves the point L-BFGS evaluates
        optimizer.zero_grad()
        features = canvas()
        content_loss = F.mse_loss(features[1], content_target)
        style_loss = sum(F.mse_loss(gram(f), t.expand(len(f), -1, -1))
                         for f, t in zip(features, style_targets))
        loss = content_loss + STYLE_WEIGHT * style_loss
        loss.backward()
        return loss

    with nd.watch(canvas, optimizer, **watch) as mon:
        for _ in range(steps):
            loss = optimizer.step(closure)
            mon.step(loss)
    mon.final_loss = round(float(loss), 2)
    mon.style_distance, mon.content_distance = style_and_content_distances(
        canvas.unit_image(), content)
    return mon
