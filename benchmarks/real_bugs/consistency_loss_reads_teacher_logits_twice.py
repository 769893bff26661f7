"""Mean teacher: the consistency loss should compare the student's logits on a strongly
perturbed view with the teacher's logits on a weak view, but the student's logits are read
from the teacher's output by a copy-paste slip. The term compares the teacher with itself:
it is exactly 0, carries no gradient, and the unlabelled data teach nothing.

Reported: "Possible bug in meanteacher algorithm" -
https://github.com/microsoft/Semi-supervised-learning/issues/102 ("logits_x_ulb_s gets
assigned the logits of outs_x_ulb_w. So the consistency loss is calculated only with
logits_x_ulb_w, which results in 0 consistency loss in every iteration"; fixed in #135).
Here digits with 100 labelled rows and 1,000 unlabelled ones, an MLP with dropout, Gaussian
pixel noise (sd 0.6) as the strong view, an EMA teacher (decay 0.99), consistency weight 20.
Measured on 500 held-out digits (seed 0, 400 steps): 80.6% accuracy with the term comparing
the teacher with itself, 82.2% with the student's logits (20 labels: 73.0% against 74.2%);
a small gain, as mean teacher's is on so small a task, and all of it lost.
Fix: read the student's logits from the student's forward on the strong view.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Possible bug in meanteacher algorithm"
LINK = "https://github.com/microsoft/Semi-supervised-learning/issues/102"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "LOSS_TERM_ZERO_WITHOUT_GRADIENT")
STEPS = 400
HELD_OUT = 500
LABELLED = 100
UNLABELLED = 1000
EMA = 0.99
WEIGHT = 20.0


def perturbed(x, generator, scale):
    return x + scale * torch.randn(x.shape, generator=generator)


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained student."""
    torch.manual_seed(0)
    x, y = classification()
    x_lb, y_lb = x[:LABELLED], y[:LABELLED]
    x_ulb = x[LABELLED:LABELLED + UNLABELLED]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10))
    teacher = copy.deepcopy(model)
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    noise = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, UNLABELLED, (64,), generator=noise)
            x_ulb_w = x_ulb[rows]
            x_ulb_s = perturbed(x_ulb[rows], noise, 0.6)
            optimizer.zero_grad()
            logits_x_lb = model(x_lb)
            with torch.no_grad():
                logits_x_ulb_w = teacher(x_ulb_w)
            outs_x_ulb_s = model(x_ulb_s)
            # BUG (unfixed): the student's logits read from the teacher's output
            logits_x_ulb_s = outs_x_ulb_s if fixed else logits_x_ulb_w
            sup_loss = F.cross_entropy(logits_x_lb, y_lb)
            unsup_loss = F.mse_loss(logits_x_ulb_s.softmax(1), logits_x_ulb_w.softmax(1))
            loss = sup_loss + WEIGHT * unsup_loss
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                for t, s in zip(teacher.parameters(), model.parameters()):
                    t.mul_(EMA).add_(s, alpha=1 - EMA)
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    model.eval()
    x, y = classification()
    with torch.no_grad():
        return (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
