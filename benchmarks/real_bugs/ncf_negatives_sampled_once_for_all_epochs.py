"""Negative items for implicit-feedback training drawn once, before the first epoch, and
reused for every epoch. An NCF model learns "liked" from each user's interactions and
"not liked" from a few sampled items the user never touched (4 per positive); a fixed
draw gives each user one small set of negatives for the whole run, and the model
memorises it: the drawn items are pushed down, the undrawn unobserved items are never
seen as negatives at all, and the ranking of the items the user has not interacted with -
which is what a recommender is scored on - mixes truly unwanted items with wanted ones
by the luck of the draw. The training loss keeps falling (the fixed set is easy to
memorise), so the run looks healthy.

Reported: "negative samples should be different in each train epoch" -
https://github.com/guoyang9/NCF/issues/4 (the repository's training set sampled its
negative items once when the data set was built; the reporter: negatives must be drawn
anew every epoch, as the official NCF implementation does, "otherwise it will
overfitting"; the maintainer agreed and moved the sampling into each epoch).
Here a GMF model (NCF's matrix-factorisation branch, 32 wide) on synthetic implicit
feedback: 200 users, 60 items, each user's 12 favourite items (low-rank preference plus
noise) of which one is held out, 4 negatives per positive from the items the user never
interacted with, BCE, Adam 0.01, batches of 256, 60 epochs. Bug: the negatives drawn
once before the epochs; fix: drawn again at the start of every epoch.

Measured (hit rate at 10: share of users whose held-out item ranks in the top 10 of
the 49 items they have not interacted with in training): seed 0: 0.670 with the bug, 0.755
fixed; seeds shifted by 1000: 0.670 against 0.830.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._tab152 import GMF, hit_rate, implicit_feedback

TITLE = "negative samples should be different in each train epoch"
LINK = "https://github.com/guoyang9/NCF/issues/4"
EXPECTED = ("NEGATIVES_SAMPLED_ONCE",)
USERS, ITEMS, NEGATIVES, BATCH, EPOCHS = 200, 60, 4, 256, 60
PER_EPOCH = USERS * 11 * (1 + NEGATIVES) // BATCH
STEPS = EPOCHS * PER_EPOCH


def training_instances(positives, rng):
    """Every (user, item, label): each positive, and NEGATIVES unobserved items for it."""
    users, items, labels = [], [], []
    for user, liked in enumerate(positives):
        others = np.setdiff1d(np.arange(ITEMS), liked)
        drawn = rng.choice(others, size=len(liked) * NEGATIVES)
        users += [user] * (len(liked) + len(drawn))
        items += list(liked) + list(drawn)
        labels += [1.0] * len(liked) + [0.0] * len(drawn)
    return torch.tensor(users), torch.tensor(items), torch.tensor(labels)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    positives, held_out = implicit_feedback(rng, USERS, ITEMS)
    model = GMF(USERS, ITEMS, dim=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    data = training_instances(positives, rng)      # BUG when reused: drawn once
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            if step % PER_EPOCH == 0:
                if fixed and step:     # the fix: fresh negatives every epoch
                    data = training_instances(positives, rng)
                order = torch.randperm(len(data[2]))
            index = order[(step % PER_EPOCH) * BATCH:(step % PER_EPOCH + 1) * BATCH]
            users, items, labels = (part[index] for part in data)
            optimizer.zero_grad()
            loss = loss_fn(model(users, items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.hit_rate_at_10 = hit_rate(model, positives, held_out)
    return mon
