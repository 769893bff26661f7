"""One-class splits of the 8x8 digits for the anomaly-detection cases: one digit is the
normal class, the other nine are anomalies. Kept small: each case shows its own bug."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._common import index_batches  # noqa: F401  (cases import it here)


def one_class_digits(normal=0, seed=0, held_out_normals=60, held_out_anomalies=240):
    """(train_normals, train_others, test_x, test_is_anomaly): the normal digit's images split
    into training rows and ``held_out_normals`` held-out rows; the other digits split into
    training rows (labelled anomalies, for the cases that need them) and
    ``held_out_anomalies`` held-out rows. The test rows come normals first, as a test folder
    read in order would."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    x, y = x[order], y[order]
    normals, others = x[y == normal], x[y != normal]
    test_x = torch.cat([normals[:held_out_normals], others[:held_out_anomalies]])
    is_anomaly = torch.cat([torch.zeros(held_out_normals), torch.ones(held_out_anomalies)])
    return normals[held_out_normals:], others[held_out_anomalies:], test_x, is_anomaly


def auroc(scores, is_anomaly):
    """Area under the ROC curve of ``scores`` (higher: more anomalous), ties averaged."""
    scores, positive = scores.double().flatten(), is_anomaly.bool().flatten()
    values, inverse = scores.unique(return_inverse=True)
    order = scores.argsort()
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.double)
    totals = torch.zeros(len(values), dtype=torch.double).index_add_(0, inverse, ranks)
    counts = torch.zeros(len(values), dtype=torch.double).index_add_(
        0, inverse, torch.ones_like(ranks))
    ranks = (totals / counts)[inverse]
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    return ((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()

