"""Small training helpers shared by the probes, written once for both frameworks.

torch and minigrad share the few calls a training step needs (``loss.backward()``,
``optimizer.zero_grad()``, ``optimizer.step()``, ``module.train()/eval()``), so the
probes drive both through these helpers; only building an optimizer needs to know
which framework's ``optim`` package to use.
"""
import contextlib
import math

import numpy as np

from ..records import DROPOUT_TYPES


def optim_package(adapter):
    """``torch.optim`` or ``minigrad.optim``, matching the model's framework."""
    if adapter.framework == "torch":
        import torch.optim
        return torch.optim
    if adapter.framework == "minigrad":
        import minigrad.optim
        return minigrad.optim
    raise TypeError(f"no optimizer package known for framework {adapter.framework!r}")


def make_optimizer(adapter, name, params, **hyper):
    """A fresh optimizer of the model's framework, e.g. ``make_optimizer(a, "Adam", ps, lr=1e-3)``."""
    return getattr(optim_package(adapter), name)(params, **hyper)


def trainable_parameters(adapter):
    return [p for _, p in adapter.named_parameters() if adapter.requires_grad(p)]


@contextlib.contextmanager
def grad_enabled(adapter):
    """Record the graph even if the caller sits inside ``no_grad`` (a probe must train)."""
    if adapter.framework == "torch":
        import torch
        with torch.enable_grad():
            yield
    elif adapter.framework == "minigrad":
        import minigrad as mg
        with mg.enable_grad():
            yield
    else:
        yield


@contextlib.contextmanager
def no_grad(adapter):
    if adapter.framework == "torch":
        import torch
        with torch.no_grad():
            yield
    elif adapter.framework == "minigrad":
        import minigrad as mg
        with mg.no_grad():
            yield
    else:
        yield


def scalar_loss_value(adapter, loss):
    """The loss as a Python float; a clear error when the loss is not a scalar."""
    if not hasattr(loss, "backward"):
        raise TypeError(f"loss_fn must return a {adapter.framework} tensor (something with "
                        f".backward()), got {type(loss).__name__}")
    value = np.asarray(adapter.to_host(loss))
    if value.size != 1:
        raise ValueError(f"loss_fn must return a scalar loss, got shape {tuple(value.shape)}; "
                         "reduce it (e.g. .mean()) or use reduction='mean'")
    return float(value.reshape(()))


def train_step(adapter, optimizer, inputs, targets, loss_fn):
    """One optimizer step on prepared inputs/targets; returns the loss before the step.

    A non-finite loss is returned without stepping, so a diverged model is not
    pushed further into NaN.
    """
    optimizer.zero_grad()
    with grad_enabled(adapter):
        output = adapter.call_model(adapter.model, inputs)
        loss = loss_fn(output, targets)
    value = scalar_loss_value(adapter, loss)
    if not math.isfinite(value):
        return value
    loss.backward()
    optimizer.step()
    return value


def forward_output(adapter, inputs):
    """The model's output on prepared inputs, without recording a graph."""
    with no_grad(adapter):
        return adapter.call_model(adapter.model, inputs)


def disable_dropout(adapter):
    """Put only the dropout layers in eval mode (batch-norm keeps its train-mode statistics)."""
    switched = []
    for name, module in adapter.named_modules():
        if adapter.module_type(module) in DROPOUT_TYPES and module.training:
            module.eval()
            switched.append(name)
    return switched


def as_pair(batch, index):
    """One element of ``batches`` as (inputs, targets), or a clear TypeError."""
    if isinstance(batch, dict) and "inputs" in batch and "targets" in batch:
        return batch["inputs"], batch["targets"]
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        return batch[0], batch[1]
    kind = type(batch).__name__
    shape = getattr(batch, "shape", None)
    found = f"{kind} of shape {tuple(shape)}" if shape is not None else \
        f"{kind} of length {len(batch)}" if hasattr(batch, "__len__") else kind
    raise TypeError(f"batches must yield (inputs, targets) pairs, but element {index} is a {found}; "
                    "pass e.g. [(x, y)] * 100 for one batch, or a DataLoader")


def first_dim(value):
    """Number of samples of an inputs/targets structure (first dimension of its first array)."""
    if isinstance(value, dict):
        value = next(iter(value.values()), None)
    if isinstance(value, (tuple, list)) and value and not np.isscalar(value[0]):
        value = value[0]
    shape = getattr(value, "shape", None)
    if shape is None:
        shape = np.shape(value)
    return int(shape[0]) if len(shape) else 1


def take_samples(value, start, stop):
    """Samples ``start:stop`` of an inputs/targets structure (tensor, array, tuple, dict)."""
    if isinstance(value, dict):
        return {k: take_samples(v, start, stop) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(take_samples(v, start, stop) for v in value)
    return value[start:stop]


def split_batches(inputs, targets, batch_size):
    """``[(inputs, targets)]`` mini-batches of ``batch_size`` samples (the last may be smaller,
    a tail of fewer than half a batch is dropped so no step runs on a handful of samples)."""
    n = first_dim(inputs)
    if n <= batch_size:
        return [(inputs, targets)]
    batches = []
    for start in range(0, n, batch_size):
        stop = min(n, start + batch_size)
        if stop - start < batch_size / 2 and batches:
            break
        batches.append((take_samples(inputs, start, stop), take_samples(targets, start, stop)))
    return batches


__all__ = ["make_optimizer", "train_step", "disable_dropout", "as_pair", "take_samples",
           "split_batches"]
