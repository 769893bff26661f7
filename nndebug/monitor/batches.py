"""A fingerprint of each early batch: is the data order the same every epoch?

DATA_ORDER_REPEATS (and, across ranks, DDP_SAME_DATA_ON_RANKS) need to know whether two
batches are the same batch. A forward pre-hook on the model reads the first input tensor
of each training forward pass and reduces a few of its values to one number on the device
(``fingerprint``): equal batches give equal numbers, and nothing is copied to the host
per step - the numbers are copied in one go every ``FLUSH_EVERY`` steps.

Cost and bounds: one checksum per training forward, on the steps of a sparse ruler only
(``records.is_fingerprinted_step``: the first 32 steps, then every 32nd), for the first
``MAX_FINGERPRINTS`` steps; then the hook is removed (an epoch longer than half of that is
not checked). Between ruler steps the hook is off, so the model runs without it; it stays
on at every step while a listener needs every step's batch (the ranks of a distributed
run, the dependency probes until they ran). Forward passes in eval mode (validation) are
not counted; several training forwards in one optimizer step (gradient accumulation) add
up to one number. A step not fingerprinted is NaN in ``run.fingerprints``.
"""
import zlib

import numpy as np

from ..records import is_fingerprinted_step
from .sinks import Sink
from .transfer import to_host_many

MAX_FINGERPRINTS = 4096       # [design] steps fingerprinted: epochs up to 2048 batches are checked
FLUSH_EVERY = 256             # device scalars copied to the host together
SAMPLED_VALUES = 64           # values of a large batch the fingerprint reads (evenly spaced)
WHOLE_BATCH_BYTES = 1 << 16   # [measured] a batch up to 64 KiB on the host is checksummed
                              # whole: one C call, cheaper between torch's kernels than
                              # picking 64 values out of it (~9 against ~15 us a step on
                              # a 64x64 float batch), and exact
GOLDEN = 0.6180339887498949   # mixes the two sums so that they cannot cancel each other


def first_tensor(adapter, value):
    """The first tensor among the model's inputs (nested tuples, lists and dicts)."""
    if adapter.is_tensor(value):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        for item in value:
            found = first_tensor(adapter, item)
            if found is not None:
                return found
    return None


def sampling_stride(size):
    """The step between the values a fingerprint reads: odd, so that it does not land on
    the same pixel of every image (with 8x8 images flattened, an even step of 32 reads
    pixels 0 and 32 of each: both blank in every digit, so every batch looked the same)."""
    return max(1, size // SAMPLED_VALUES) | 1


_POSITIONS = {}    # size -> the flat positions a fingerprint reads (a batch size repeats)


def _sampled_positions(size):
    positions = _POSITIONS.get(size)
    if positions is None:
        if len(_POSITIONS) > 64:
            _POSITIONS.clear()
        positions = _POSITIONS[size] = \
            np.arange(0, size, sampling_stride(size))[:SAMPLED_VALUES]
    return positions


def fingerprint(adapter, tensor):
    """One number that identifies a batch: a Python float when the batch is on the host
    (a checksum of the whole batch when it is small, else of a few values read in place),
    else a scalar computed on the device (copied later, with others, in one transfer)."""
    host = adapter.host_view(tensor)
    if host is not None:
        if host.size == 0:
            return None
        if host.nbytes <= WHOLE_BATCH_BYTES:
            try:
                return float(zlib.crc32(host, host.size & 0xFFFFFFFF))
            except (BufferError, ValueError):     # a strided view: checksum a copy in order
                return float(zlib.crc32(np.ascontiguousarray(host), host.size & 0xFFFFFFFF))
        sampled = host.flat[_sampled_positions(host.size)]
        # a checksum of the sampled bytes: one C call, the same in every process (DDP ranks
        # compare theirs), unlike Python's hash() which each process seeds differently
        return float(zlib.crc32(sampled.tobytes(), host.size & 0xFFFFFFFF))
    xp = adapter.xp
    flat = xp.reshape(adapter.detach(tensor), (-1,))
    n = flat.shape[0]
    if n == 0:
        return None
    values = xp.asfloat(flat[::sampling_stride(n)][:SAMPLED_VALUES])
    return xp.sum(values) + GOLDEN * xp.sum(values * values) + float(n)


class BatchFingerprints(Sink):
    """Fingerprints the batch of each early optimizer step into ``run.fingerprints``."""

    def __init__(self, adapter, model, limit=MAX_FINGERPRINTS):
        self.adapter, self.model, self.limit = adapter, model, limit
        self._current = None          # this step's fingerprint (device scalar), or None
        self._pending = []            # device scalars not yet copied to the host
        self._count = 0
        self.listeners = []           # fn(fingerprint) for the step's value (rank exchange)
        self.forward_listeners = []   # fn(module, inputs, kwargs) for each training forward
                                      # (probes that keep the inputs): one hook serves them all
        self._done = False            # past MAX_FINGERPRINTS steps: the hook is gone for good
        self._handle = None
        self._hook_on()                # step 0 is fingerprinted

    def _hook_on(self):
        # with the keywords too: a model called the Hugging Face way, model(input_ids=...,
        # labels=...), has no positional input (torch; minigrad's hooks see none)
        if self._handle is None:
            self._handle = self.adapter.add_forward_pre_hook(self.model, self._on_forward,
                                                             with_kwargs=True)

    def _hook_off(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_forward(self, module, inputs, kwargs):
        adapter = self.adapter
        if not adapter.is_training(module):
            return
        if self.forward_listeners:
            self._tell_listeners(module, inputs, kwargs)
        try:
            # the usual case first: the batch is the first positional input
            tensor = inputs[0] if inputs and adapter.is_tensor(inputs[0]) else \
                first_tensor(adapter, inputs) if inputs else first_tensor(adapter, kwargs)
            value = None if tensor is None else fingerprint(adapter, tensor)
        except Exception:             # an exotic input: no fingerprint, training goes on
            value = None
        if value is not None:
            self._current = value if self._current is None else self._current + value

    def _tell_listeners(self, module, inputs, kwargs):
        for listener in list(self.forward_listeners):
            try:
                listener(module, inputs, kwargs)
            except Exception:         # a listener never breaks the user's forward pass
                self.forward_listeners.remove(listener)

    @property
    def active(self):
        """Whether batches are still being fingerprinted (the hook may be off until the
        next ruler step)."""
        return not self._done

    def take_current(self):
        """This step's fingerprint (device scalar or None); the step is closed."""
        value, self._current = self._current, None
        return value

    def on_step(self, run, step):
        value = self.take_current()
        for listener in self.listeners:
            listener(value)
        if self._done:
            return
        self._pending.append(value)
        self._count += 1
        if len(self._pending) >= FLUSH_EVERY:
            self.flush(run)
        every_step = self.listeners or self.forward_listeners
        if self._count >= self.limit and not every_step:
            self.remove_hook()
        elif every_step or is_fingerprinted_step(step + 1):
            self._hook_on()
        else:
            self._hook_off()       # the model runs without it until the next ruler step

    def flush(self, run):
        """Copy the pending fingerprints to the host (one transfer); NaN where none."""
        pending, self._pending = self._pending, []
        tensors = [v for v in pending if v is not None and not isinstance(v, float)]
        try:
            host = iter([float(v) for v in to_host_many(self.adapter, tensors)] if tensors else [])
        except Exception:             # never break training: stop fingerprinting instead
            self.remove_hook()
            raise
        for value in pending:
            if len(run.fingerprints) >= self.limit:
                break
            run.fingerprints.append(float("nan") if value is None else
                                    value if isinstance(value, float) else next(host))

    def findings(self, run):
        self.flush(run)               # so that the rules see every fingerprint so far
        return []

    def remove_hook(self):
        """Stop fingerprinting for good (and, without listeners, no call per step)."""
        self._done = True
        self._hook_off()
        if not self.listeners:
            self.unneeded = ("on_step",)

    def close(self, run):
        self.flush(run)
        self.remove_hook()
