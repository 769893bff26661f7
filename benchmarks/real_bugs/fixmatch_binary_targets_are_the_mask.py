"""FixMatch adapted to one sigmoid output (a binary task) whose unlabelled term uses the
confidence mask as its target: ``mask = sigmoid(weak) >= 0.95`` and then
``BCE(strong, mask) * mask``. Wherever the mask is 1 the target is 1, and wherever it is 0
the term is multiplied away, so every pseudo-label the model ever gets is "positive": a
confident negative (p <= 0.05) is ignored instead of being taught as a 0, and the only
push the unlabelled data give is towards the positive class. The supervised term on a few
labelled rows is all that holds the negatives back.

Reported: "Unsupervised loss part for one single class" -
https://github.com/kekmodel/FixMatch-pytorch/issues/11 (the reporter's
``Lu = (F.binary_cross_entropy(logits_u_s, mask, reduction='none') * mask).mean()``; the
maintainer's answer: the target is ``targets_u = pseudo_label.ge(0.5)``, the mask only
weighs it). Here digits 0-4 against 5-9 with one logit, 100 labelled rows, 1,000 unlabelled,
Gaussian pixel noise (sd 0.3) as the strong view, unlabelled weight 1, Adam.

Measured (seed 0, 400 steps, 500 held-out digits, eval mode): held-out accuracy 0.800
with the mask as target, 68.8% of the held-out digits called positive (49.6% are); with
targets from the pseudo-label's side and the confidence on either side, 0.846 and 62.6%.
Fix: ``targets_u = (p >= 0.5).float()`` and ``mask = (torch.max(p, 1 - p) >= 0.95)``, the
loss ``(BCE(strong, targets_u) * mask).mean()``.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import binary

TITLE = "Unsupervised loss part for one single class"
LINK = "https://github.com/kekmodel/FixMatch-pytorch/issues/11"
EXPECTED = ("PSEUDO_LABELS_ONE_CLASS",)
STEPS = 400
HELD_OUT = 500
LABELLED = 100
UNLABELLED = 1000
THRESHOLD = 0.95
NOISE = 0.3
WEIGHT = 1.0


def train(fixed=False, steps=STEPS, **watch):
    """(monitor, model)."""
    torch.manual_seed(0)
    x, y = binary()
    x_lb, y_lb = x[:LABELLED], y[:LABELLED]
    x_ulb = x[LABELLED:LABELLED + UNLABELLED]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_u = x_ulb[torch.randint(0, UNLABELLED, (64,))]
            x_u_strong = x_u + NOISE * torch.randn_like(x_u)
            optimizer.zero_grad()
            logits = model(torch.cat([x_lb, x_u, x_u_strong])).squeeze(1)
            logits_x = logits[:LABELLED]
            logits_u_w, logits_u_s = logits[LABELLED:].chunk(2)
            sup_loss = F.binary_cross_entropy_with_logits(logits_x, y_lb)
            pseudo_label = torch.sigmoid(logits_u_w.detach())
            if fixed:
                targets_u = pseudo_label.ge(0.5).float()
                mask = torch.max(pseudo_label, 1 - pseudo_label).ge(THRESHOLD).float()
            else:
                mask = pseudo_label.ge(THRESHOLD).float()
                targets_u = mask           # BUG: the mask is the target, every pseudo-label 1
            unsup_loss = (F.binary_cross_entropy_with_logits(logits_u_s, targets_u,
                                                             reduction="none") * mask).mean()
            loss = sup_loss + WEIGHT * unsup_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def measured(fixed):
    """(held-out accuracy, share of held-out digits predicted positive)."""
    _, model = train(fixed)
    model.eval()
    x, y = binary()
    with torch.no_grad():
        positive = model(x[-HELD_OUT:]).squeeze(1) > 0
    return (round((positive.float() == y[-HELD_OUT:]).float().mean().item(), 3),
            round(positive.float().mean().item(), 3))


if __name__ == "__main__":
    torch.set_num_threads(1)
    for fixed in (False, True):
        print("fixed" if fixed else "bug", measured(fixed))
