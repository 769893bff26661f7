"""Shared pieces of real-bug batch 268 (beginner train/validation/test splitting and data
leakage in first training scripts): the 8x8 digits in an order drawn from torch's generator,
a shuffled mini-batch loop, the held-out metrics, and SCORES, where each case leaves the
held-out metric of its last run (so the harm each docstring states can be measured again:
run the case, read SCORES[<case name>])."""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import classification

SCORES = {}


def shuffled_digits(images=False):
    """(x, y): the digits in [0, 1] as (N, 64) rows or (N, 1, 8, 8) images, in an order drawn
    from torch's generator (so a shifted seed draws other splits)."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    return x[order], y[order]


def minibatches(n, batch_size, shuffle=True):
    """Row indices of one epoch over ``n`` rows: reshuffled from torch's generator when
    ``shuffle``, else in order (a DataLoader's default); the last partial batch kept."""
    order = torch.randperm(n) if shuffle else torch.arange(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def predict(model, x, batch_size=512):
    """The model's outputs on ``x`` in eval mode, without gradients; the mode is restored."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])
    model.train(was_training)
    return out


def accuracy(model, x, y):
    """Held-out accuracy: class logits argmax, or one logit > 0 for 0/1 targets."""
    out = predict(model, x)
    if out.dim() == 1 or out.shape[1] == 1:
        return round(float(((out.reshape(-1) > 0).float() == y).float().mean()), 3)
    return round(float((out.argmax(1) == y).float().mean()), 3)


def held_out_loss(model, x, y):
    """Mean cross-entropy of ``model`` on held-out rows (eval mode, no gradients)."""
    return float(F.cross_entropy(predict(model, x), y))


def record(case, value):
    SCORES[case.rsplit(".", 1)[-1]] = value
    return value
