"""Forward loss correction for noisy labels written by hand with the noise transition
matrix applied to the network's raw scores instead of its class probabilities: the
corrected prediction of the noisy label should be ``softmax(f) @ T`` (the clean-class
probabilities pushed through the known flip probabilities), but the script computes
``f @ T`` on the logits and hands that to ``F.cross_entropy``. Mixing scores is not mixing
probabilities: the softmax of ``f @ T`` fits the noisy labels about as plain
cross-entropy would, so the correction that should let the network recover the clean
classes from pair-flipped labels does nothing, and nothing errors.

Reported: "forward loss: normalize the score vector before applying the transition
matrix Q" - https://github.com/takashiishida/comp/issues/1 ("the forward_loss function
directly applies the transition matrix Q to f", an unnormalized score vector; the author
fixed it and prepared an errata). The report's code learns from complementary labels,
whose transition is uniform off the diagonal; here the same forward loss corrects pair
label noise: an MLP (64 -> 256 -> 10) on the 8x8 digits (1,300 training images, 45% of
their labels flipped to the next class, c -> c + 1, 497 clean held-out images), the
known transition matrix, Adam (lr 1e-3), batches of 64.
Fix: apply T to the probabilities, ``F.nll_loss(torch.log(F.softmax(f, 1) @ T), noisy)``.

Measured (held-out accuracy, 400 steps): 0.881 with the bug, 0.960 fixed; seeds + 1000:
0.871 vs 0.966.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import accuracy, digits_split, pair_noise

TITLE = "forward loss: normalize the score vector before applying the transition matrix Q"
LINK = "https://github.com/takashiishida/comp/issues/1"
EXPECTED = ("TRANSITION_APPLIED_TO_LOGITS",)
STEPS = 400
NOISE = 0.45
BATCH = 64
CLASSES = 10


def transition_matrix():
    """T[i, j] = P(noisy label j | clean class i) for pair flips c -> c + 1."""
    keep = torch.eye(CLASSES) * (1 - NOISE)
    flip = torch.roll(torch.eye(CLASSES), 1, dims=1) * NOISE
    return keep + flip


def forward_loss(scores, noisy, T, fixed):
    if fixed:
        return F.nll_loss(torch.log(F.softmax(scores, dim=1) @ T + 1e-12), noisy)
    return F.cross_entropy(scores @ T, noisy)          # BUG: T mixes raw scores


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    noisy, _ = pair_noise(y, NOISE)
    T = transition_matrix()
    model = mlp(hidden=256)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH):
            loss = forward_loss(model(x[index]), noisy[index], T, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
