"""The loss of every step, kept cheaply: a detached reference now, the value later.

``step(loss)`` keeps a loss on an accelerator where it lives (no device-to-host copy, so no
wait for the device, per step); a loss already on the CPU is read at once. The pending
losses ride along with the next recorded step's transfer, or are copied in one go at a
loss-check step, when too many wait (``PENDING_LOSSES_MAX``) or when findings are asked for.

Losses read on the CPU need no copy: at a loss-check step they go to the jump check as
they are (``unchecked``), and move into the run's curve (NumPy arrays, and the sinks that
want them) only with a record, at ``PENDING_LOSSES_MAX``, or when something reads the run.
Moving eight losses every eight steps cost about as much as the rest of a plain step's
watching on a small MLP.
"""
import math

import numpy as np

PENDING_LOSSES_MAX = 1024    # unrecorded losses move into the run at most this late


def loss_value(adapter, value, what):
    """A loss as the monitor keeps it: a float, or a detached scalar tensor of the framework.

    ``what`` names the argument in the error messages ("loss" or "val_loss").
    """
    quick = adapter.host_scalar(value)      # a float loss on the CPU: read it at once
    if quick is not None:
        return quick
    if adapter.is_tensor(value):
        if "complex" in str(getattr(value, "dtype", "")):
            raise TypeError(f"step({what}=...) expects a real loss, got a complex tensor "
                            f"({value.dtype}); pass its real part or its magnitude (loss.abs())")
        if math.prod(value.shape) != 1:
            raise ValueError(f"step({what}=...) expects a scalar, got a tensor of shape "
                             f"{tuple(value.shape)}; pass the mean loss (e.g. loss.mean())")
        detached = adapter.detach(value)
        if isinstance(detached, np.ndarray):
            return float(detached.reshape(-1)[0])
        if adapter.on_host(detached):
            return float(detached)     # on the CPU a float costs less than keeping a tensor
        return detached                # on a GPU: no sync now, copied later with others
    if hasattr(value, "item") and hasattr(value, "shape"):   # a NumPy scalar or array
        if np.iscomplexobj(value):
            raise TypeError(f"step({what}=...) expects a real loss, got a complex value "
                            f"({np.asarray(value).dtype})")
        array = np.asarray(value, dtype=float)
        if array.size != 1:
            raise ValueError(f"step({what}=...) expects a scalar, got shape {array.shape}")
        return float(array.reshape(-1)[0])
    if isinstance(value, complex):
        raise TypeError(f"step({what}=...) expects a real loss, got the complex number {value!r}")
    if isinstance(value, (bool, str, bytes)):     # float() would read "0.5" and True
        raise TypeError(f"step({what}=...) expects this step's loss as a number or a scalar "
                        f"tensor, got {type(value).__name__} {value!r}; pass the loss tensor "
                        f"itself (or loss.item())")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"step({what}=...) expects a number or a scalar tensor, got "
                        f"{type(value).__name__}") from None


class PendingLosses:
    """Losses of one curve ("train" or "val") not yet moved into the run."""

    def __init__(self, curve):
        self.curve = curve
        self.items = []          # [(step, float or device tensor)]
        self.on_device = 0       # how many of them are device tensors (not yet read)
        self._checked = 0        # items[:_checked] went to the jump check already

    def __len__(self):
        return len(self.items)

    def add(self, step, value):
        self.items.append((step, value))
        if type(value) is not float:
            self.on_device += 1

    def unchecked(self):
        """``(steps, values)`` of the losses added since the last call (all host floats:
        call it only while ``on_device`` is 0)."""
        new = self.items[self._checked:]
        self._checked = len(self.items)
        return [s for s, _ in new], [v for _, v in new]

    def tensors(self):
        """The pending values still on the device, in order."""
        return [v for _, v in self.items if not isinstance(v, float)]

    def take(self, tensor_values):
        """``(steps, values)`` of every pending loss, emptied; ``tensor_values`` are the
        host values of ``tensors()``, in order (numbers are taken as they are)."""
        host = iter(tensor_values)
        steps = [s for s, _ in self.items]
        values = [v if isinstance(v, float) else next(host) for _, v in self.items]
        self.items, self.on_device, self._checked = [], 0, 0
        return steps, values
