"""Consistency training whose target - the model's own softmax on the clean unlabelled
input - is not detached: the consistency term back-propagates into both of its sides. The
student side is pulled towards the target, as intended, but the target side is pulled
towards the noisy prediction too, and through the cross-entropy's -p log q the clean
prediction is pushed to put all its mass on the noisy view's top class: the term rewards
the model for being confidently wrong on the unlabelled data as much as for being right,
and the labelled set is too small to hold it back.

Reported: "details on updating parameters" -
https://github.com/AlanChou/Deep-Co-Training-for-Semi-Supervised-Image-Recognition/issues/1
(the reporter asks why there is no ``.detach()`` on the target tensor; the author: "I
realized that I made a mistake. A detach operation is indeed needed as you mention ... I
will fix it"). Here a Pi-model on the digits: 100 labelled rows, 1,000 unlabelled ones,
Gaussian pixel noise (sd 0.5) as the perturbed view, consistency weight 10, Adam.

Measured (seed 0, 400 steps, 500 held-out digits, eval mode): the target not detached,
0.102 held-out accuracy - chance: the term has made the model confident on the unlabelled
data whatever it predicts, and the 100 labels no longer pull it out; detached, 0.798.
Fix: ``target = model(x_u).softmax(1).detach()`` (or compute it under ``torch.no_grad()``).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "details on updating parameters"
LINK = "https://github.com/AlanChou/Deep-Co-Training-for-Semi-Supervised-Image-Recognition/issues/1"
EXPECTED = ("CONSISTENCY_TARGET_NOT_DETACHED",)
STEPS = 400
HELD_OUT = 500
LABELLED = 100
UNLABELLED = 1000
NOISE = 0.5
WEIGHT = 10.0


def train(fixed=False, steps=STEPS, **watch):
    """(monitor, model) after training."""
    torch.manual_seed(0)
    x, y = classification()
    x_lb, y_lb = x[:LABELLED], y[:LABELLED]
    x_ulb = x[LABELLED:LABELLED + UNLABELLED]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_u = x_ulb[torch.randint(0, UNLABELLED, (64,))]
            x_u_noisy = x_u + NOISE * torch.randn_like(x_u)
            optimizer.zero_grad()
            sup_loss = F.cross_entropy(model(x_lb), y_lb)
            target = model(x_u).softmax(1)
            if fixed:
                target = target.detach()
            # BUG (unfixed): the target is not detached, the term trains both of its sides
            unsup_loss = -(target * F.log_softmax(model(x_u_noisy), 1)).sum(1).mean()
            loss = sup_loss + WEIGHT * unsup_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    model.eval()
    x, y = classification()
    with torch.no_grad():
        return round((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item(), 3)


if __name__ == "__main__":
    torch.set_num_threads(1)
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
