"""Pieces the batch-274 cases share (beginner physics-informed networks and curve fitting
from first tutorials): the input derivative a residual takes, a held-out R^2 and a
relative L2 error."""
import torch


def derivative(y, x):
    """dy/dx per point (y computed pointwise from x), kept in the graph for a second one."""
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


def r2(prediction, truth):
    prediction, truth = prediction.double(), truth.double()
    total = ((truth - truth.mean()) ** 2).sum()
    return round(float(1 - ((truth - prediction) ** 2).sum() / total), 3)


def relative_error(prediction, truth):
    return round(float((prediction - truth).norm() / truth.norm()), 3)
