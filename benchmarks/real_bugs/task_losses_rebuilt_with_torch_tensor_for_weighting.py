"""Learned task weights (Kendall et al.'s uncertainty weighting) whose per-task losses are first
gathered into a new tensor with ``torch.Tensor([loss_1, loss_2])`` before being divided by the
learned sigma squared. ``torch.Tensor`` copies the values into a fresh leaf: the losses leave
the autograd graph (PyTorch only warns about converting a tensor that requires grad to a
scalar), so the backward reaches the sigmas and nothing else. The shared encoder and both
heads keep their initial weights; the total loss still falls for a while, because the sigmas
learn to fit the two constant task losses.

Reported: "How to learn the weights between two losses?" -
https://discuss.pytorch.org/t/how-to-learn-the-weights-between-two-losses/39681 (the thread's
answer builds ``MultiTaskLoss`` with ``l = 0.5 * torch.Tensor(l) / self.sigma**2`` over the task
losses, ``nn.Parameter`` sigmas and the task networks in one module handed to the optimizer).
Here that module wraps a shared 64-64-32 encoder with a digit head (cross-entropy) and a head
regressing each image's standardised ink (squared error) on the 8x8 digits (the last 297 held
out), sigmas started at 1, Adam at 3e-3 over the whole module, 300 steps of 64 images.

Fix: ``torch.stack([loss_1, loss_2])``, which keeps both losses in the graph.

Measured (held-out digit accuracy, 297 digits): 0.104 with the bug, 0.852 fixed; seeds + 1000:
0.091 vs 0.838.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "How to learn the weights between two losses?"
LINK = "https://discuss.pytorch.org/t/how-to-learn-the-weights-between-two-losses/39681"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "NO_GRADIENT")
STEPS = 300


class DigitAndInk(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.digit = nn.Linear(32, 10)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.digit(h), self.ink(h).squeeze(1)


class MultiTaskLoss(nn.Module):
    """The task network and one learned sigma per task, trained together."""

    def __init__(self, model, fixed):
        super().__init__()
        self.model = model
        self.sigma = nn.Parameter(torch.ones(2))
        self.fixed = fixed

    def forward(self, x, digit, ink):
        logits, ink_pred = self.model(x)
        losses = [F.cross_entropy(logits, digit), F.mse_loss(ink_pred, ink)]
        if self.fixed:
            losses = torch.stack(losses)
        else:
            losses = torch.Tensor(losses)     # BUG: a new tensor, cut from the model's graph
        weighted = 0.5 * losses / self.sigma ** 2
        return weighted.sum() + torch.log(self.sigma.prod())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    ink = x.sum(1)
    ink = (ink - ink.mean()) / ink.std()
    mtl = MultiTaskLoss(DigitAndInk(), fixed)
    optimizer = torch.optim.Adam(mtl.parameters(), lr=3e-3)
    with nd.watch(mtl, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            loss = mtl(x[index], y[index], ink[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mtl.eval()
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(mtl.model(x_held)[0], y_held)
    return mon
