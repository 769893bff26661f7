"""UDA-style consistency training whose softmax temperature sharpens the wrong side: the
target (the model's prediction on the original unlabelled image, no gradient) should be
``softmax(logits_ori / T)`` with T < 1, a sharper version of what the model believes, and
the student ``log_softmax(logits_aug)``; the script divides the AUGMENTED logits by T
and leaves the target as it is. The KL term then asks the augmented prediction, sharpened,
to equal the unsharpened original one: instead of being pulled towards a confident
answer the student is pulled towards a softer one (its logits shrink by the factor T),
and the entropy-minimising push that makes UDA work is turned into its opposite. The loss
falls as before; nothing errors.

Reported: "uda_softmax_temp is sharpening augmentation probs, but should sharpen original
probs" - https://github.com/SanghunYun/UDA_pytorch/issues/23 (the paper sharpens the
original example's prediction with ``uda_softmax_temp``; the line in ``main.py`` applies
it to the augmented logits). Here semi-supervised digits (benchmarks/real_bugs/_semi180.py):
20 labelled digits, 1,200 unlabelled ones, the weak view as "original" and the strong view
as the augmentation, an MLP, Adam, T 0.4, UDA's confidence mask (target max >= 0.8), KL
weight 1. Fix: ``softmax(logits_ori / T)`` as the target, ``log_softmax(logits_aug)``.

Measured (600 steps, 500 held-out digits, eval mode): seed 0, held-out accuracy 0.642 for
the bug against 0.782 for the fixed twin; seeds shifted by 1000, 0.642 against 0.802. The
labelled term alone gives 0.754 / 0.768 in this set-up: the misplaced temperature makes the
unlabelled data worse than none.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._semi180 import accuracy, classifier, split, strong, weak

TITLE = ("uda_softmax_temp is sharpening augmentation probs, but should sharpen original "
         "probs")
LINK = "https://github.com/SanghunYun/UDA_pytorch/issues/23"
EXPECTED = ("SHARPENING_TEMPERATURE_ON_STUDENT",)
STEPS = 600
BATCH = 64
LABELLED = 20
TEMPERATURE = 0.4
CONFIDENCE = 0.8
WEIGHT = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_lb, y_lb, x_ulb, _, x_test, y_test = split(LABELLED)
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_u = x_ulb[torch.randint(0, len(x_ulb), (BATCH,))]
            logits = model(torch.cat([weak(x_lb), weak(x_u), strong(x_u)]))
            logits_lb = logits[:len(x_lb)]
            logits_ori, logits_aug = logits[len(x_lb):].chunk(2)
            logits_ori = logits_ori.detach()
            if fixed:
                target = F.softmax(logits_ori / TEMPERATURE, dim=1)
                student = F.log_softmax(logits_aug, dim=1)
            else:   # BUG: the temperature divides the augmented (student) logits
                target = F.softmax(logits_ori, dim=1)
                student = F.log_softmax(logits_aug / TEMPERATURE, dim=1)
            mask = (F.softmax(logits_ori, dim=1).max(1).values >= CONFIDENCE).float()
            kl = (target * (torch.log(target + 1e-8) - student)).sum(1)
            unsup_loss = (kl * mask).sum() / mask.sum().clamp(min=1)
            loss = F.cross_entropy(logits_lb, y_lb) + WEIGHT * unsup_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
