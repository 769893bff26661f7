"""An evidential classifier (Sensoy et al.'s Dirichlet loss) whose KL regulariser is
annealed in with ``min(1, epoch / annealing_epochs)``, but the epoch the loss reads is never
advanced - it stays at 0 - so the coefficient is 0 for the whole run and the KL term, which
removes the evidence a sample gives to the wrong classes, never acts. The classifier still
learns (the Dirichlet MSE term fits the labels), but nothing teaches it to withhold evidence:
its uncertainty ``K / sum(alpha)`` stays low on inputs unlike anything it was trained on,
which is what the method is used for. No error; the loss falls.

Reported: "Cbecker" - https://github.com/ai2es/miles-guess/pull/22 (the author found that
the evidential classifier did not update the epoch its annealing coefficient reads, so its
results could not match those of the older Keras 2 version; the pull request fixes it). Here
a digits MLP with a softplus evidence head trained with the Dirichlet MSE loss plus the
annealed KL term (10 annealing epochs), scored on 797 test digits and on 797
out-of-distribution images (the test digits' pixels shuffled, the same shuffle for every
image).
Fix: pass the current epoch to the loss (here: advance it once per pass over the data).

Measured (800 steps, seed 0): the bug's uncertainty tells its mistakes from its correct test
predictions with AUROC 0.781, the twin's with 0.895; on the shuffled-pixel images its mean
uncertainty is 0.43 (the twin's 0.71, 1.0 being no evidence at all). The bug classifies more
test digits correctly (0.952 against 0.920): the KL term trades a little accuracy for
evidence it withholds, which is the method's point.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import auroc, split
from benchmarks.real_bugs._common import batches, mlp

TITLE = "Cbecker"
LINK = "https://github.com/ai2es/miles-guess/pull/22"
EXPECTED = ("KL_ANNEALING_NEVER_ADVANCED",)
STEPS = 800
EPOCH = 9                 # batches of 64 in the 600 training rows
ANNEALING_EPOCHS = 10     # Sensoy et al.'s annealing length
CLASSES = 10


def dirichlet_kl_to_uniform(alpha):
    """KL(Dir(alpha) || Dir(1, ..., 1)) per row."""
    total = alpha.sum(1)
    return (torch.lgamma(total) - torch.lgamma(torch.tensor(float(CLASSES)))
            - torch.lgamma(alpha).sum(1)
            + ((alpha - 1) * (torch.digamma(alpha) - torch.digamma(total)[:, None])).sum(1))


def evidential_loss(logits, labels, epoch):
    """Sensoy et al.'s Dirichlet MSE loss plus the annealed KL of the misleading evidence."""
    alpha = F.softplus(logits) + 1
    total = alpha.sum(1, keepdim=True)
    p = alpha / total
    y = F.one_hot(labels, CLASSES).float()
    fit = ((y - p) ** 2 + p * (1 - p) / (total + 1)).sum(1)
    annealing = min(1.0, epoch / ANNEALING_EPOCHS)
    misleading = y + (1 - y) * alpha          # the true class's evidence taken out
    return (fit + annealing * dirichlet_kl_to_uniform(misleading)).mean()


def uncertainty(model, x):
    with torch.no_grad():
        alpha = F.softplus(model(x)) + 1
    return CLASSES / alpha.sum(1), alpha.argmax(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), _, (x_test, y_test) = split(seed=0)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    epoch = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = evidential_loss(model(xb), yb, epoch)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if fixed and done % EPOCH == 0:
                epoch += 1
            # BUG (unfixed): the epoch the loss reads stays at 0
    shuffle = torch.randperm(64, generator=torch.Generator().manual_seed(1))
    u_test, predicted = uncertainty(model, x_test)
    u_ood, _ = uncertainty(model, x_test[:, shuffle])
    mon.extra = {"test_accuracy": round(float((predicted == y_test).float().mean()), 3),
                 "uncertainty_test": round(float(u_test.mean()), 3),
                 "uncertainty_ood": round(float(u_ood.mean()), 3),
                 "ood_auroc": round(auroc(torch.cat([u_test, u_ood]),
                                          torch.arange(2 * len(u_test)) >= len(u_test)), 3),
                 "misclassification_auroc": round(auroc(u_test, predicted != y_test), 3)}
    return mon
