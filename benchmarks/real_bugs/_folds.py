"""What the cross-validation cases of real-bug batch 100 share: a shuffled k-fold split and a
held-out loss. Each case keeps its own fold loop, where its bug lives."""
import torch
import torch.nn.functional as F


def fold_splits(n, folds, seed=0):
    """(train index, held-out index) of each fold of a shuffled k-fold split."""
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    parts = order.chunk(folds)
    return [(torch.cat(parts[:k] + parts[k + 1:]), parts[k]) for k in range(folds)]


def held_out_loss(model, x, y):
    """Cross-entropy on held-out rows, in eval mode and without gradients (train mode back)."""
    model.eval()
    with torch.no_grad():
        loss = float(F.cross_entropy(model(x), y))
    model.train()
    return loss
