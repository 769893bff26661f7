"""Early-learning regularisation (ELR) whose running targets are kept per position in the
batch instead of per training example. ELR keeps, for every example, a temporal average of
the network's past predictions (``t_i <- beta * t_i + (1 - beta) * p_i``) and adds
``lambda * log(1 - <p_i, t_i>)`` to the cross-entropy, which holds each prediction near what
the network said about THAT example early on, before it memorised its (possibly wrong)
label. Dropping the example index from the loss and sizing the buffer to the batch makes
slot ``i`` average the predictions of whatever examples happened to sit at row ``i``:
after a few batches every slot holds about the same blurred average of all predictions, the
regulariser stops pointing anywhere in particular, and the network memorises the noisy
labels as plain cross-entropy does. The loss falls, nothing errors.

Reported: "Last batch size error with self.target" - https://github.com/shengliu66/ELR/issues/4
(a user removed ``index`` from ``elr_loss.forward`` and set ``num_examp`` to the batch size
to use the loss "for batches", hitting only a shape error on the last partial batch; the
author answered that without the index the loss cannot track the instances across epochs -
each example's target must stay its own, looked up by its dataset index). Here: an MLP on
the 8x8 digits (1,300 training images, 50% symmetric label noise, 497 clean held-out
images), Adam, ELR with beta 0.7 and lambda 3 (the paper's CIFAR-10 values). Fix: one
target row per training example, read and updated at the batch's dataset indices.

Measured (3,000 steps, batch 64): held-out accuracy at seed 0, 0.79 for the bug against
0.96 for the fixed twin; seeds shifted by 1000, 0.78 against 0.97.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import accuracy, digits_split, symmetric_noise

TITLE = "Last batch size error with self.target"
LINK = "https://github.com/shengliu66/ELR/issues/4"
EXPECTED = ("PER_EXAMPLE_STATE_INDEXED_BY_BATCH_POSITION",)
STEPS = 3000
NOISE = 0.5
BATCH = 64
BETA = 0.7
LAMBDA = 3.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    noisy, _ = symmetric_noise(y, NOISE)
    model = mlp(hidden=256)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = len(x) if fixed else BATCH           # BUG: one target row per batch position
    targets = torch.zeros(rows, 10)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH):
            logits = model(x[index])
            p = F.softmax(logits, dim=1).clamp(1e-4, 1 - 1e-4)
            slots = index if fixed else torch.arange(len(index))
            with torch.no_grad():
                average = p / p.sum(dim=1, keepdim=True)
                targets[slots] = BETA * targets[slots] + (1 - BETA) * average
            regulariser = (1 - (targets[slots] * p).sum(dim=1)).log().mean()
            loss = F.cross_entropy(logits, noisy[index]) + LAMBDA * regulariser
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
