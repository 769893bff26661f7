"""What the averaged-copy cases of real-bug batch 96 share: an 80/20 split of the digits and a
training loop that validates the averaged copy (an EMA) every epoch. Each case keeps its own
``update`` of the copy, where its bug lives."""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification


def split():
    """(x_train, y_train, x_val, y_val): a fixed shuffled 80/20 split of the digits."""
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def ema_loss(ema, x, y):
    """The copy's held-out cross-entropy, in the copy's own dtype (a half-precision copy reads
    half-precision inputs)."""
    dtype = next(ema.parameters()).dtype
    with torch.no_grad():
        return F.cross_entropy(ema(x.to(dtype)).float(), y)


def train_validating_ema(model, ema, optimizer, update, data, steps, epoch, watch):
    """Train ``model`` under watch, ``update()`` the copy after every step and give its
    held-out loss as the validation loss every ``epoch`` steps; the monitor keeps the
    validation history as ``mon.val_history``."""
    x_train, y_train, x_val, y_val = data
    history = []
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            update()
            val_loss = None
            if done % epoch == 0:
                val_loss = ema_loss(ema, x_val, y_val)
                history.append(val_loss.item())
            mon.step(loss, val_loss=val_loss)
    mon.val_history = history
    return mon
