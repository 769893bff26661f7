"""Entropic optimal transport pieces batch 206's cases share: a log-domain Sinkhorn written
out in torch (differentiated by autograd through its iterations), a Wasserstein loss
between class histograms (Frogner et al. 2015) with the digits' classes on a line, and a
Sinkhorn divergence between weighted point clouds (Genevay et al. 2018)."""
import numpy as np
import torch

# the ground metric between the ten digit classes: |i - j| / 9 (classes on a line)
CLASS_COST = (torch.arange(10.0)[:, None] - torch.arange(10.0)[None, :]).abs() / 9


def log_sinkhorn_plans(log_a, log_b, cost, eps, iters, column_axis=1):
    """Batched entropic plans between histograms ``exp(log_a)`` (B, n) and ``exp(log_b)``
    (B, m) under one cost (n, m): alternate the row and column scalings in log space.
    ``column_axis`` is the axis of the (B, n, m) kernel the column update reduces over: 1,
    over the rows (2, over the columns, would broadcast silently when n == m)."""
    kernel = -cost / eps
    log_u = torch.zeros_like(log_a)
    log_v = torch.zeros_like(log_b)
    for _ in range(iters):
        log_u = log_a - torch.logsumexp(kernel[None] + log_v[:, None, :], dim=2)
        log_v = log_b - torch.logsumexp(kernel[None] + log_u[:, :, None], dim=column_axis)
    return torch.exp(log_u[:, :, None] + kernel[None] + log_v[:, None, :])


# every pair of different classes one apart (the transport cost is then the total
# variation between the histograms)
EQUIDISTANT_COST = 1 - torch.eye(10)


def wasserstein_class_loss(probabilities, targets, eps=0.05, iters=30, column_axis=1,
                           cost=CLASS_COST):
    """Per-example transport cost <P, C> between predicted and target class histograms."""
    log_a = torch.log(probabilities.clamp_min(1e-12))
    log_b = torch.log(targets.clamp_min(1e-12))
    plans = log_sinkhorn_plans(log_a, log_b, cost, eps, iters, column_axis)
    return (plans * cost).sum(dim=(1, 2))


def entropic_ot(x, y, a, b, eps, iters=50):
    """The entropic OT cost <P, C> + eps KL(P | a b^T) between point clouds x (n, d) with
    weights a (n,) and y (m, d) with weights b (m,), squared-distance cost over 2."""
    cost = 0.5 * torch.cdist(x, y) ** 2
    log_a, log_b = torch.log(a), torch.log(b)
    f = torch.zeros_like(a)
    g = torch.zeros_like(b)
    for _ in range(iters):      # dual potentials, log-sum-exp updates
        f = -eps * torch.logsumexp(log_b[None, :] + (g[None, :] - cost) / eps, dim=1)
        g = -eps * torch.logsumexp(log_a[:, None] + (f[:, None] - cost) / eps, dim=0)
    return (a * f).sum() + (b * g).sum()


def uniform(n):
    return torch.full((n,), 1.0 / n)


def point_sets(n, rng, points=4):
    """``n`` sets of ``points`` 2-D points, each made from a 4-D Gaussian code by one fixed
    random two-layer map (drawn from ``rng``), the points of each set shuffled: codes (n, 4),
    sets (n, points, 2) as float32 tensors."""
    first = rng.normal(size=(4, 32)) / 2
    second = rng.normal(size=(32, points * 2)) / np.sqrt(32) * 2
    codes = rng.normal(size=(n, 4))
    sets = (np.tanh(codes @ first) @ second).reshape(n, points, 2)
    for row in sets:
        rng.shuffle(row)
    return torch.tensor(codes, dtype=torch.float32), torch.tensor(sets, dtype=torch.float32)


def matched_set_error(predicted, targets):
    """The mean squared distance between each target and its slot under an optimal
    matching, over sets (n, k, 2)."""
    from scipy.optimize import linear_sum_assignment
    total = 0.0
    for p, t in zip(predicted.numpy(), targets.numpy()):
        cost = ((p[:, None, :] - t[None, :, :]) ** 2).sum(-1)
        rows, cols = linear_sum_assignment(cost)
        total += cost[rows, cols].mean()
    return float(total / len(predicted))


def sinkhorn_divergence(x, y, eps, a=None, b=None, iters=50):
    """The debiased Sinkhorn divergence OT(x, y) - OT(x, x)/2 - OT(y, y)/2 with weights a, b
    (uniform when not given)."""
    a = uniform(len(x)) if a is None else a
    b = uniform(len(y)) if b is None else b
    return (entropic_ot(x, y, a, b, eps, iters) - 0.5 * entropic_ot(x, x, a, a, eps, iters)
            - 0.5 * entropic_ot(y, y, b, b, eps, iters))
