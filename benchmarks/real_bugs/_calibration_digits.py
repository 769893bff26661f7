"""Pieces the batch-114 calibration and uncertainty cases share: the digits cut into
training, validation and test rows, and the scores they are judged by (expected calibration
error, the area under the ROC curve of an uncertainty score)."""
import torch

from benchmarks.real_bugs._common import classification

TRAIN, VALIDATION = 600, 400      # [design] rows; the remaining 797 are the test rows


def split(seed=0):
    """(x_train, y_train), (x_val, y_val), (x_test, y_test) of the 8x8 digits (flat)."""
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    parts = order[:TRAIN], order[TRAIN:TRAIN + VALIDATION], order[TRAIN + VALIDATION:]
    return [(x[p], y[p]) for p in parts]


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
