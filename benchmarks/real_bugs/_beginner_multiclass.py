"""Pieces the beginner multi-class reports (batch 239) share (kept small: each case shows its
bug): the 8x8 digits (as rows or as 1x8x8 images) shuffled by torch's generator and split
into a training and a held-out part, the held-out accuracy of a model's predictions, and
SCORES, where each case leaves the held-out accuracy of its last run (so the harm each
docstring states can be measured again: run the case, read SCORES[<case name>])."""
import torch

from benchmarks.real_bugs._common import classification

SCORES = {}


def split_digits(images=False, held_out=400):
    """(x_train, y_train, x_test, y_test): the digits in [0, 1] in an order drawn from
    torch's generator, the last ``held_out`` rows held out."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def predicted_accuracy(predictions, y):
    return (predictions == y).float().mean().item()


def held_out_logits(model, x, batch_size=None):
    """The model's outputs on ``x`` in eval mode, without gradients, in batches of
    ``batch_size`` (all at once when None); the model's mode is restored afterwards."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        size = batch_size or len(x)
        out = torch.cat([model(x[i:i + size]) for i in range(0, len(x), size)])
    model.train(was_training)
    return out


def record(case, accuracy):
    SCORES[case.rsplit(".", 1)[-1]] = accuracy
    return accuracy
