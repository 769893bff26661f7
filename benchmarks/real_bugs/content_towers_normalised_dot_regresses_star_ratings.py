"""A content-based two-tower recommender from a first course: a user network and an item
network, each output L2-normalised, their dot product trained with squared error against
the star ratings - left on their 0.5..5 scale. A dot product of unit vectors never leaves
[-1, 1], so every rating above 1 star is out of reach: the loss drives each user vector
onto each item vector it rated (the closer, the higher the prediction), towers collapse
towards one direction, and what separates a 2-star from a 5-star item is lost. The loss
still falls from its start and then sits far above zero.

Reported: "Double Question: L2 norm-ing item and user vectors, and similar movies using
||v_k - v_j||^2" -
https://community.deeplearning.ai/t/double-question-l2-norm-ing-item-and-user-vectors-and-similar-movies-using-v-k-v-j-2/521674
("with a v_m and v_u normalized, how can v_m dot v_u possibly have a magnitude greater
than 1, which would be necessary for predictions between 0 and 5?"). The course's lab
scales the targets into [-1, 1] first; a learner rebuilding it without that step gets this
run. Here synthetic feature-based ratings of ``_tt295`` (400 users, 300 items, 9,600
training ratings), the two feature towers, Adam, 300 steps of 64 ratings.

Fix: scale the ratings into [-1, 1] for training (min-max over the star scale) and map the
predictions back to stars.

Measured (held-out correlation of predicted and true ratings): 0.035 with the bug, 0.741
fixed; seeds + 1000: 0.048 vs 0.737 (held-out RMSE in stars: 2.39 vs 0.64; 2.41 vs 0.64).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._tt295 import ContentTowers, index_batches, ratings

TITLE = ("Double Question: L2 norm-ing item and user vectors, and similar movies using "
         "||v_k - v_j||^2")
LINK = ("https://community.deeplearning.ai/t/double-question-l2-norm-ing-item-and-user-"
        "vectors-and-similar-movies-using-v-k-v-j-2/521674")
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300
LOW, HIGH = 0.5, 5.0


def to_unit(stars):
    return (stars - LOW) / (HIGH - LOW) * 2 - 1


def to_stars(unit):
    return (unit + 1) / 2 * (HIGH - LOW) + LOW


def predict(model, user_x, item_x, users, items):
    vu = F.normalize(model.user(user_x[users]), dim=1)
    vm = F.normalize(model.item(item_x[items]), dim=1)
    return (vu * vm).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    user_x, item_x, train, held = ratings(seed=0)
    model = ContentTowers()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train[0]), steps, batch_size=64, seed=0):
            users, items, stars = train[0][index], train[1][index], train[2][index]
            prediction = predict(model, user_x, item_x, users, items)
            target = to_unit(stars) if fixed else stars   # BUG: stars, not scaled to [-1, 1]
            loss = F.mse_loss(prediction, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        guess = predict(model, user_x, item_x, held[0], held[1])
        guess = to_stars(guess) if fixed else guess
    mon.held_out_rmse = (guess - held[2]).pow(2).mean().sqrt().item()
    mon.held_out_correlation = torch.corrcoef(torch.stack([guess, held[2]]))[0, 1].item()
    return mon
