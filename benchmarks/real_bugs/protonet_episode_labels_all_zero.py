"""A prototypical network trained on episodes whose labels all came out 0. The episode
sampler groups the images by the dataset's label list, and that list - built by a loader
adapted from another dataset - holds 0 for every image: every episode is "one class", the
loss finds a single prototype, its softmax over one distance is 1, and the loss is exactly
0 with accuracy 1.0 from the first step. No gradient ever reaches the encoder; training
reports perfection while the encoder stays at its initialisation.

Reported: "Mini Imagenet Results" -
https://github.com/orobix/Prototypical-Networks-for-Few-shot-Learning-PyTorch/issues/19
("it is giving 0 error and 100% accuracy ... While debugging further, I realized the real
problem lies in the batch_sampler": with a plain loader the labels read ``[36, 62, 18,
...]``, from the episode sampler ``tensor([0, 0, 0, 0, ...])``). Here the digits, 5-way
5-shot episodes with 10 queries per class, a small MLP encoder, the loss written as that
repository's ``prototypical_loss`` (classes = the unique labels of the episode); meta-test
on episodes of 297 held-out digits. Fix: the episode's labels taken from the images' real
classes.

Measured (200 episodes, 100 held-out episodes): the bug's loss 0.0 and training accuracy
1.0 on every step, the encoder never moved; held-out 5-way accuracy 0.81 from the
untrained encoder against the fixed twin's 0.96.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Mini Imagenet Results"
LINK = "https://github.com/orobix/Prototypical-Networks-for-Few-shot-Learning-PyTorch/issues/19"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 200
HELD_OUT = 297
WAYS, SHOTS, QUERIES = 5, 5, 10


def episode(x, labels, rng):
    """``WAYS`` classes of ``labels``, ``SHOTS + QUERIES`` images each (as the repository's
    sampler: grouped by class), with the labels the dataset gives them."""
    classes = rng.permutation(np.unique(labels))[:WAYS]
    rows = []
    for c in classes:
        pool = np.flatnonzero(labels == c)
        rows.append(rng.choice(pool, min(len(pool), SHOTS + QUERIES), replace=False))
    rows = np.concatenate(rows)
    return x[rows], torch.from_numpy(labels[rows])


def prototypical_loss(embeddings, target, n_support):
    """As the repository writes it: the episode's classes from its labels, the first
    ``n_support`` of each as support, the rest as queries."""
    classes = torch.unique(target)
    support = [torch.nonzero(target == c).flatten()[:n_support] for c in classes]
    prototypes = torch.stack([embeddings[i].mean(0) for i in support])
    query = torch.cat([torch.nonzero(target == c).flatten()[n_support:] for c in classes])
    log_p = (-torch.cdist(embeddings[query], prototypes) ** 2).log_softmax(dim=1)
    truth = torch.cat([torch.full((len(torch.nonzero(target == c)) - n_support,), i)
                       for i, c in enumerate(classes)])
    loss = nn.functional.nll_loss(log_p, truth)
    return loss, float((log_p.argmax(1) == truth).float().mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    labels = y_train.numpy() if fixed else np.zeros(len(y_train), np.int64)  # BUG: every label 0
    encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))
    optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    accuracies = []
    with nd.watch(encoder, optimizer, **watch) as mon:
        for _ in range(steps):
            xb, yb = episode(x_train, labels, rng)
            optimizer.zero_grad()
            loss, accuracy = prototypical_loss(encoder(xb), yb, SHOTS)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            accuracies.append(accuracy)
    correct = []
    with torch.no_grad():
        for _ in range(100):
            xb, yb = episode(x_test, y_test.numpy(), rng)
            correct.append(prototypical_loss(encoder(xb), yb, SHOTS)[1])
    mon.train_accuracy = round(sum(accuracies[-20:]) / 20, 3)
    mon.test_accuracy = round(sum(correct) / len(correct), 3)
    return mon
