"""A multi-class focal loss whose ``alpha`` is ONE float multiplied into every class's term:
``focal = -alpha * (1 - p) ** gamma * log p`` summed against the one-hot target. The same
0.25 for every class is only a smaller learning rate; the class balancing alpha stands for
in the paper (a weight per class, large for the rare ones) never happens, and on a
long-tailed set the rare classes stay drowned by the frequent ones. Nothing errors; the loss
falls like any focal loss.

Reported: "Bug about the weight factor alpha of focal loss" -
https://github.com/kornia/kornia/issues/875 ("It seems like we are multiplying the loss of
different classes by a same alpha factor. I think this is equal to just reduce lr, and
cannot address the class imbalance issue"; a maintainer agreed "our implementation is
probably wrong"; reported again as #2371, "alpha ... should be a tensor with n_classes
element"). Here: the long-tailed digits (benchmarks/real_bugs/_imb186.py: digits 0-4 with
about 125 training rows each, 5-9 with 4), an MLP, Adam, kornia's focal loss (gamma 2,
alpha 0.25), batches of 32. Fix: alpha a per-class table, the inverse class frequencies
normalised to sum 1, gathered by the target.

Measured (400 steps; on 535 held-out digits at their natural shares, the balanced accuracy
- the mean recall of the ten digits - and the mean recall of the rare digits 5-9): seed 0,
balanced accuracy 0.79 for the bug against 0.86 for the fixed twin (rare digits 0.59 against
0.78); seeds shifted by 1000, 0.69 against 0.83 (rare 0.40 against 0.67).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import balanced_accuracy, inverse_frequency, long_tail

TITLE = "Bug about the weight factor alpha of focal loss"
LINK = "https://github.com/kornia/kornia/issues/875"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 400
GAMMA = 2.0
BATCH = 32


def focal_loss(logits, target, alpha, gamma):
    """kornia.losses.focal_loss: alpha a float (the bug) or a per-class tensor (the fix)."""
    log_p = F.log_softmax(logits, dim=1)
    one_hot = F.one_hot(target, logits.shape[1]).float()
    focal = -alpha * (1 - log_p.exp()) ** gamma * log_p     # alpha broadcast over classes
    return (one_hot * focal).sum(1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail(seed=0)
    if fixed:
        weights = inverse_frequency(y, 10)
        alpha = weights / weights.sum()               # one alpha per class
    else:
        alpha = 0.25                                  # BUG: the same for every class
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH, seed=0):
            loss = focal_loss(model(x[index]), y[index], alpha, GAMMA)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    mon.held_out_rare_recall = balanced_accuracy(model, x_test, y_test, among=range(5, 10))
    return mon
