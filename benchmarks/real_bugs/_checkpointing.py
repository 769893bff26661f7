"""Pieces the batch-233 cases share (saving, loading and resuming training by hand): a
checkpoint "file" kept in memory as the bytes ``torch.save`` writes, and one epoch of
shuffled mini-batches under the monitor with an optional validation pass at its end. The
digits splits, the evaluation pass and the wide MLP come from ``_loop_control``."""
import io

import torch
import torch.nn.functional as F

from benchmarks.real_bugs._loop_control import evaluate, splits, wide_mlp  # noqa: F401


def to_bytes(state):
    """What ``torch.save(state, "checkpoint.pt")`` writes, as bytes."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def from_bytes(saved):
    """``torch.load`` of a checkpoint written by ``to_bytes``."""
    return torch.load(io.BytesIO(saved))


def train_epoch(model, optimizer, train, batch_size, mon, validate=None, scheduler=None):
    """One epoch over ``train`` (x, y) in a fresh random order (torch's global generator):
    zero_grad, cross-entropy, backward, step (and ``scheduler.step()`` per batch if given);
    after the last batch ``validate(model)`` -> (validation loss, anything), the loss handed
    to the monitor's last step as ``val_loss``. Returns ``validate``'s answer (or None)."""
    x, y = train
    order = torch.randperm(len(x))
    batches = [order[s:s + batch_size] for s in range(0, len(x) - batch_size + 1, batch_size)]
    answer = None
    for i, index in enumerate(batches):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x[index]), y[index])
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        val_loss = None
        if validate is not None and i == len(batches) - 1:
            answer = validate(model)
            val_loss = answer[0]
        mon.step(loss, val_loss=val_loss)
    return answer
