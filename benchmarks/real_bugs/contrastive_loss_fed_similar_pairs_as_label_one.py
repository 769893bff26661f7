"""A siamese tutorial labels its pairs 1 for "same digit" and 0 for "different", then
trains them with the contrastive loss as the paper writes it, in which ``y = 1`` marks a
DISSIMILAR pair: ``(1 - y) * d**2 + y * max(margin - d, 0)**2``. Every matching pair is
pushed out to the margin and every mismatched pair pulled together, so the distance the
network learns is backwards; the loss still falls and nothing crashes.

Reported: "Inaccurate Contrastive Loss in the example?" -
https://github.com/keras-team/tf-keras/issues/469 ("In the original paper, similar pair = 0,
dissimilar pair = 1 ... However, in the given tutorial, similar pair = 1, dissimilar pair =
0, and the eqn above are still used for calculating the loss"; the keras-io example was
then changed to match the paper's label definition, keras-team/keras-io#1050). Here an MLP
tower on 8x8 digits, balanced pairs of 64, margin 1, Adam.

Fix: label the pairs the way the loss reads them (1 = different digits), or swap the two
terms.

Measured (held-out 1-nearest-neighbour accuracy of the embedding, 500 digits):
held-out accuracy 0.462 vs 0.926 for the fixed twin; seeds + 1000: 0.466 vs 0.940
(300 steps each).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._siamese_tutorials import (balanced_pairs, digits,
                                                      nearest_neighbour_accuracy,
                                                      new_generator, tower)

TITLE = "Inaccurate Contrastive Loss in the example?"
LINK = "https://github.com/keras-team/tf-keras/issues/469"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 300
MARGIN = 1.0


def contrastive_loss(distance, y):
    """The paper's form: y = 1 means the pair is dissimilar."""
    return ((1 - y) * distance.pow(2) + y * (MARGIN - distance).clamp_min(0).pow(2)).mean()


def _train(fixed, steps, watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits()
    generator = new_generator()
    model = tower()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            first, second, same = balanced_pairs(y, 64, generator)
            # BUG when not fixed: the tutorial's label (1 = same) fed to the paper's loss
            label = 1 - same if fixed else same
            optimizer.zero_grad()
            a, b = model(x[first]), model(x[second])
            distance = (a - b).pow(2).sum(1).clamp_min(1e-9).sqrt()
            loss = contrastive_loss(distance, label)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, nearest_neighbour_accuracy(model, x, y, x_test, y_test)


def run(fixed=False, steps=STEPS, **watch):
    return _train(fixed, steps, watch)[0]
