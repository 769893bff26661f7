"""Pieces the batch-266 cases share (early stopping, checkpoint selection and validation
tracking written by hand around a first training script): the over-fitting set-up of the
batch-233 checkpoint cases - the 8x8 digits, 600 training rows with 40% of their labels
replaced by random digits, 200 clean validation rows, the rest held out, a 64-256-256-10 MLP
under Adam (lr 2e-3, batches of 32, 18 steps an epoch) - whose validation loss bottoms out
after about a dozen epochs and then climbs while the held-out accuracy falls; and the
held-out score a case leaves on its monitor."""
import torch

from benchmarks.real_bugs._checkpointing import (evaluate, from_bytes, splits,  # noqa: F401
                                                 to_bytes, train_epoch, wide_mlp)

BATCH = 32
EPOCH_STEPS = 600 // BATCH
NOISE = 0.4
LR = 2e-3


def setup():
    """(train, validation, held-out) splits, the model and its Adam, after seeding torch."""
    torch.manual_seed(0)
    train, validation, held_out = splits(noise=NOISE, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    return train, validation, held_out, model, optimizer


def epochs_for(steps):
    """How many whole epochs ``steps`` optimizer steps make (at least one)."""
    return max(1, steps // EPOCH_STEPS)


def finish(mon, model, held_out, epochs_run, kept_epoch=None):
    """Leave on the monitor what the run produced: the epochs it trained, the epoch whose
    weights it kept, and their accuracy on the held-out digits."""
    mon.epochs_run = epochs_run
    mon.kept_epoch = kept_epoch if kept_epoch is not None else epochs_run
    mon.held_out_accuracy = evaluate(model, *held_out)[1]
    return mon
