"""Pieces the batch-144 cases share: each trains a LightningModule on the 8x8 digits
through a real ``lightning.pytorch.Trainer`` with nndebug's ``NNDebugCallback`` (the
monitor the callback builds, closed at the end of fit, is what a case returns)."""
import logging
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from benchmarks.real_bugs._common import classification

HELD_OUT = 497          # the last rows of the digits, never trained on


def digits():
    """(x_train, y_train, x_held, y_held): the digits as (N, 64) floats in [0, 1]."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def loader(x, y, batch_size=32, shuffle=True):
    """A training DataLoader; shuffling draws from torch's global generator (seeded by the
    case's ``torch.manual_seed``), last partial batch dropped."""
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle,
                      drop_last=True)


def mlp(hidden=64, dropout=0.0, batch_norm=False):
    layers = [nn.Linear(64, hidden)]
    if batch_norm:
        layers.append(nn.BatchNorm1d(hidden))
    layers.append(nn.ReLU())
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(hidden, 10))
    return nn.Sequential(*layers)


def fit(module, train_loader, steps, **watch):
    """Train ``module`` for ``steps`` optimizer steps in a quiet Trainer watched by
    NNDebugCallback; the callback's (closed) monitor comes back."""
    import lightning.pytorch as pl
    from nndebug.integrations.lightning import NNDebugCallback
    for name in ("lightning.pytorch", "lightning.fabric", "lightning"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cb = NNDebugCallback(verbose=False, **watch)
    trainer = pl.Trainer(max_steps=steps, accelerator="cpu", devices=1, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, callbacks=[cb])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="lightning")
        trainer.fit(module, train_loader)
    return cb.monitor


@torch.no_grad()
def held_out(model, x, y):
    """(loss, accuracy) of ``model`` in eval mode on the held-out digits."""
    was = model.training
    model.eval()
    out = model(x)
    model.train(was)
    return (nn.functional.cross_entropy(out, y).item(),
            (out.argmax(1) == y).float().mean().item())
