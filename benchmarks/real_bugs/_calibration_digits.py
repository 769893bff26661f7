"""Pieces the batch-114 calibration and uncertainty cases share: the digits cut into
training, validation and test rows, a classifier's training loop with a validation at every
epoch's end, and the scores they are judged by (expected calibration error, the area under
the ROC curve of an uncertainty score)."""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification

TRAIN, VALIDATION = 600, 400      # [design] rows; the remaining 797 are the test rows
EPOCH = 9                         # batches of 64 in the 600 training rows


def split(seed=0):
    """(x_train, y_train), (x_val, y_val), (x_test, y_test) of the 8x8 digits (flat)."""
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    parts = order[:TRAIN], order[TRAIN:TRAIN + VALIDATION], order[TRAIN + VALIDATION:]
    return [(x[p], y[p]) for p in parts]


def train_with_validation(mon, model, optimizer, train, validation, steps):
    """The ordinary classifier loop, inside the caller's ``nd.watch`` (whose monitor is
    ``mon``): ``steps`` batches of the ``train`` rows, the ``validation`` rows' loss measured
    in eval mode at each epoch's end and at the last step, handed to ``mon.step``. The model
    is left in train mode, as such loops leave it: the cases' bugs come after."""
    (x_train, y_train), (x_val, y_val) = train, validation
    for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
        model.train()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        val_loss = None
        if done % EPOCH == 0 or done == steps:
            model.eval()
            with torch.no_grad():
                val_loss = F.cross_entropy(model(x_val), y_val)
            model.train()
        mon.step(loss, val_loss=val_loss)


def expected_calibration_error(probs, labels, bins=15):
    """Guo et al.'s ECE: the confidence-weighted gap between confidence and accuracy."""
    confidence, predicted = probs.max(1)
    correct = (predicted == labels).float()
    edges = torch.linspace(0, 1, bins + 1)
    error = torch.zeros(())
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (confidence > low) & (confidence <= high)
        if inside.any():
            error += inside.float().mean() * (confidence[inside].mean()
                                              - correct[inside].mean()).abs()
    return float(error)


def auroc(score, positive):
    """Area under the ROC curve of ``score`` for telling ``positive`` rows from the rest
    (ties count one half): 0.5 is a score that tells nothing."""
    pos, neg = score[positive], score[~positive]
    if len(pos) == 0 or len(neg) == 0:
        return 0.5
    greater = (pos[:, None] > neg[None, :]).float().mean()
    ties = (pos[:, None] == neg[None, :]).float().mean()
    return float(greater + 0.5 * ties)
