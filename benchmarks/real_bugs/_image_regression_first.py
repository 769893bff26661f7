"""Shared pieces of real-bug batch 287 (beginner image regression and counting from first
tutorials): the 8x8 digits split into training and held-out pictures, with a per-picture
regression target or two (the share of inked pixels, the digit's value read as an "age"),
and the held-out mean absolute error of a one-output regressor."""
import torch

from benchmarks.real_bugs._regularisation_beginner import digits


def ink_fraction(x):
    """The share of a picture's 64 pixels that are clearly inked (above half intensity),
    a target in [0, 1] like the area-percentage or probability targets of the reports."""
    return (x.reshape(len(x), -1) > 0.5).float().mean(1)


def pictures():
    """(x, y, x_held, y_held): flattened digits in [0, 1] and their int64 digit values."""
    return digits()


@torch.no_grad()
def held_out_mae(model, x, target):
    """Mean |prediction - target| of a model with one output (eval mode, restored)."""
    was = model.training
    model.eval()
    error = (model(x).reshape(-1) - target.reshape(-1)).abs().mean().item()
    model.train(was)
    return round(error, 3)
