"""Shared pieces of real-bug batch 277 (beginner L1/L2 regularisation, weight decay and
dropout written by hand): the 8x8 digits split into training and held-out rows (a small
training set where asked, so regularisation matters), a small noisy linear-regression
problem with more features than a few dozen rows can pin down, and held-out metrics."""
import torch

from benchmarks.real_bugs._reg169 import accuracy, split  # noqa: F401  (re-exported)


def digits(train_rows=None):
    """(x_train, y_train, x_held_out, y_held_out) of the digits; ``train_rows`` keeps only
    the first rows of the training part."""
    x, y, xh, yh = split()
    if train_rows is not None:
        x, y = x[:train_rows], y[:train_rows]
    return x, y, xh, yh


def noisy_regression(rows=60, held_out=1000, features=50, noise=1.0):
    """A linear target with ``features`` inputs, only a few of which matter, and Gaussian
    noise: (x, y, x_held_out, y_held_out), drawn from torch's global generator (seed it
    first). With ``rows`` close to ``features`` plain least squares fits the noise."""
    w = torch.zeros(features)
    w[:5] = torch.tensor([2.0, -1.5, 1.0, 0.5, -0.5])
    x = torch.randn(rows + held_out, features)
    y = x @ w + noise * torch.randn(rows + held_out)
    return x[:rows], y[:rows], x[rows:], y[rows:]


def held_out_mse(model, x, y):
    """Mean squared error of ``model`` on ``x`` (eval mode, put back after)."""
    was = model.training
    model.eval()
    with torch.no_grad():
        error = ((model(x).squeeze(-1) - y) ** 2).mean().item()
    model.train(was)
    return round(error, 3)
