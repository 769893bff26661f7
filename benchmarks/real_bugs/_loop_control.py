"""Pieces the batch-139 cases share (training-loop control written by hand): the 8x8 digits
split into training, validation and held-out rows (optionally with symmetric label noise on
the training rows, so that a long run memorises it and the validation curve turns), one
evaluation pass, and per-epoch shuffled index batches."""
import copy

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import classification


def splits(train=600, validation=200, noise=0.0, seed=0):
    """(x, y) for training, validation and held-out rows of a seeded permutation of the
    digits; a fraction ``noise`` of the training labels replaced by uniform random digits
    (validation and held-out labels stay clean)."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    order = torch.from_numpy(rng.permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train = x[:train], y[:train].clone()
    if noise:
        flip = torch.from_numpy(rng.random(train) < noise)
        y_train[flip] = torch.from_numpy(rng.integers(0, 10, int(flip.sum())))
    end = train + validation
    return (x_train, y_train), (x[train:end], y[train:end]), (x[end:], y[end:])


def evaluate(model, x, y):
    """(mean cross-entropy, accuracy) of ``model`` on (x, y) in eval mode; train mode after."""
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = F.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(1) == y).float().mean().item()
    model.train()
    return loss, accuracy


def epoch_batches(n, batch_size, seed=0):
    """An endless run of epochs, each a list of shuffled index batches (last partial dropped)."""
    rng = np.random.default_rng(seed)
    while True:
        order = torch.from_numpy(rng.permutation(n))
        yield [order[s:s + batch_size] for s in range(0, n - batch_size + 1, batch_size)]


def snapshot(model):
    """A real copy of the weights (not the live tensors state_dict() hands back)."""
    return copy.deepcopy(model.state_dict())


def wide_mlp(hidden=256):
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, 10))


def training_epochs(model, optimizer, train, steps, batch_size, mon, validate,
                    after_step=None, seed=0):
    """The cases' training loop, epoch by epoch, under the monitor ``mon``: on each shuffled
    batch of ``train`` (x, y), zero_grad, cross-entropy, backward, step; after each epoch's
    last batch (or the run's last step) ``validate(model)`` -> (validation loss, anything
    else), the loss passed to ``mon.step`` as ``val_loss``. ``after_step(loss)``, if given,
    runs right after each optimizer step (a loop's per-batch bookkeeping). Yields (epochs
    done, validation loss, the rest of ``validate``'s answer) after each epoch, where the case
    decides what to save and whether to stop (by leaving the loop); ends after ``steps``
    optimizer steps."""
    x, y = train
    epochs = epoch_batches(len(x), batch_size, seed=seed)
    done, epoch = 0, 0
    while done < steps:
        batches = next(epochs)
        for i, index in enumerate(batches):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            done += 1
            if after_step is not None:
                after_step(loss)
            end = i == len(batches) - 1 or done == steps
            val_loss, other = validate(model) if end else (None, None)
            mon.step(loss, val_loss=val_loss)
            if done == steps:
                break
        epoch += 1
        yield epoch, val_loss, other
