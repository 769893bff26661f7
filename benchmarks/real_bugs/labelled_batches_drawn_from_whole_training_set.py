"""A semi-supervised run meant to learn from 100 labelled images and 1,000 unlabelled ones
draws each step's labelled batch at random from the WHOLE training set, labels included:
the labelled subset is chosen anew every iteration, so within a few epochs the supervised
term has read the label of every "unlabelled" image. Nothing fails: the run is simply a
supervised run on all 1,100 labels wearing a semi-supervised loop, and the accuracy it
reports for "100 labels" is that of 1,100.

Reported: "实现的不对吧，labeled样本并非固定的，每轮迭代都是随机抽取" (the implementation is wrong:
the labelled samples are not fixed, each iteration draws them at random) -
https://github.com/LDOUBLEV/semi-supervised-GAN/issues/11 ("in the end all samples were
trained on [with labels]"; another user: "yes, it does not really implement
semi-supervised learning"). Here a Pi-model on the digits: a fixed labelled subset of 100
rows and 1,000 unlabelled rows, Gaussian pixel noise (sd 0.5) as the perturbed view,
consistency weight 10, batches of 64, Adam.

Measured (seed 0, 400 steps, 500 held-out digits, eval mode): 0.854 held-out
accuracy reported for "100 labels" with batches drawn from all 1,100 labelled rows; 0.796
when only the 100 labels are read: the bug's 5.8 points are labels it was not meant to
have.
Fix: draw the labelled batch from the 100 labelled rows only (a sampler over their indices).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "实现的不对吧，labeled样本并非固定的，每轮迭代都是随机抽取"
LINK = "https://github.com/LDOUBLEV/semi-supervised-GAN/issues/11"
EXPECTED = ("LABELLED_SUBSET_REDRAWN",)
STEPS = 400
HELD_OUT = 500
LABELLED = 100
UNLABELLED = 1000
NOISE = 0.5
WEIGHT = 10.0


def train(fixed=False, steps=STEPS, **watch):
    """(monitor, model)."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:LABELLED + UNLABELLED], y[:LABELLED + UNLABELLED]
    x_ulb = x_train[LABELLED:]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            if fixed:
                rows = torch.randint(0, LABELLED, (64,))
            else:
                rows = torch.randint(0, LABELLED + UNLABELLED, (64,))   # BUG: any row, labelled
            x_lb, y_lb = x_train[rows], y_train[rows]
            x_u = x_ulb[torch.randint(0, UNLABELLED, (64,))]
            x_u_noisy = x_u + NOISE * torch.randn_like(x_u)
            optimizer.zero_grad()
            sup_loss = F.cross_entropy(model(x_lb), y_lb)
            with torch.no_grad():
                target = model(x_u).softmax(1)
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
