"""The DataLoaders in the training code's scope: how they batch, and whether the data their
Dataset stores changes while the model trains on it (real-bug batch 95).

Three slips in hand-written data pipelines leave no trace in any one batch:

- a ``__getitem__`` that normalises, rescales or augments a VIEW of the array it keeps
  (``im = self.x[i]; im -= mean``, ``target = self.boxes[i]; target /= size``) writes the
  result back into the dataset, so the next epoch transforms the transformed sample again
  (facebookresearch/pycls#21, mindee/doctr#840; hidden with worker processes, which read a
  copy, and happening with ``num_workers=0``);
- a collate function that builds its tensors from ``batch[0]`` (skit-ai/SpeechLLM#5): the
  loader reads ``batch_size`` samples and the model gets one;
- an ``IterableDataset`` read by several workers without splitting the data between them
  (espnet/espnet#2081): each worker streams the whole epoch, so every batch comes twice.

What is read: when watch starts, the locals of the calling frames (``LOADER_FRAMES``,
nndebug's own not counted) that are torch DataLoaders, as rows of
``run.observed.scoped_loaders``: ``(local name, batch_size (-1: None, manual batching),
num_workers, iterable-style dataset (0/1), a collate_fn of the user's own (0/1), the
dataset's length (-1: none))``. The float arrays the map-style dataset stores (its
attributes and the items of its list/tuple attributes, one level; a ``Subset``'s or
``ConcatDataset``'s inner datasets followed ``DATASET_DEPTH`` levels) are kept by reference,
and their root mean square, over at most ``SCALE_VALUES`` evenly spaced values, is noted at
watch start, on recorded steps at a doubling ruler (steps 1, 2, 4, 8, ...) and at close, as
rows of ``run.observed.stored_data_scales``: ``(step, local name, attribute, rms)``; an
array replaced by another object (the loop assigning new data) is no longer read. When a
scoped loader batches automatically (``batch_size`` 2 or more) with a collate of the user's
own, the recorded steps' training forwards are counted by a pre-hook put on the model while
the step is armed: ``run.observed.loader_batch_forwards``: ``(step, training forwards, the
first forward's leading input size)``, for the first ``FORWARD_STEPS_KEPT`` recorded steps.

Cost: nothing where no DataLoader is in scope. Else one walk of a few frames' locals at
watch start; per noted scale one strided read of at most 4096 values (a few microseconds);
the forward counting hook only on recorded steps, and only with a user's collate.
"""
import sys

from .caller_scope import user_frames

LOADER_FRAMES = 8            # [design] callers' frames searched, nndebug's own not counted
LOADERS_KEPT = 4             # [design] loaders noted at most (train, validation, test, ...)
DATASET_DEPTH = 3            # [design] Subset/ConcatDataset wrappers followed
STORED_ARRAYS_KEPT = 8       # [design] stored float arrays followed at most
MIN_STORED_VALUES = 64       # [design] arrays smaller than this are settings, not data
SCALE_VALUES = 4096          # [design] values an rms reads (evenly spaced): ~5 us
FORWARD_STEPS_KEPT = 32      # [design] recorded steps whose training forwards are counted


def _is_float_array(value, torch, np):
    if torch.is_tensor(value):
        return value.is_floating_point() and value.numel() >= MIN_STORED_VALUES
    return isinstance(value, np.ndarray) and value.dtype.kind == "f" and \
        value.size >= MIN_STORED_VALUES


def _rms(value, torch, np):
    """The root mean square of at most SCALE_VALUES evenly spaced values of ``value``."""
    if torch.is_tensor(value):
        with torch.no_grad():
            flat = value.detach().reshape(-1)
            picked = flat[::max(1, flat.numel() // SCALE_VALUES)][:SCALE_VALUES]
            return float(picked.double().pow(2).mean().sqrt())
    flat = value.reshape(-1)
    picked = flat[::max(1, flat.size // SCALE_VALUES)][:SCALE_VALUES]
    return float(np.sqrt(np.mean(np.square(picked.astype(np.float64)))))


def stored_arrays(dataset, torch, np, depth=DATASET_DEPTH, prefix=""):
    """``[(attribute path, array)]``: the float arrays a map-style dataset keeps."""
    found = []
    try:
        attributes = list(vars(dataset).items())
    except TypeError:
        return found
    for name, value in attributes:
        if _is_float_array(value, torch, np):
            found.append((prefix + name, value))
        elif isinstance(value, (list, tuple)) and len(value) <= 16:
            found += [(f"{prefix}{name}[{i}]", item) for i, item in enumerate(value)
                      if _is_float_array(item, torch, np)]
    if depth > 0:
        inner = getattr(dataset, "dataset", None)
        inners = [("dataset.", inner)] if inner is not None else []
        inners += [(f"datasets[{i}].", d) for i, d in
                   enumerate(getattr(dataset, "datasets", None) or [])][:4]
        for name, d in inners:
            found += stored_arrays(d, torch, np, depth - 1, prefix + name)
    return found


def loader_row(local, loader):
    """The ``scoped_loaders`` row of one DataLoader."""
    from torch.utils.data import IterableDataset
    from torch.utils.data._utils.collate import default_collate, default_convert
    collate = getattr(loader, "collate_fn", None)
    own_collate = collate is not None and collate not in (default_collate, default_convert)
    batch_size = loader.batch_size if loader.batch_size is not None else -1
    try:
        size = len(loader.dataset)
    except Exception:
        size = -1
    return (str(local), int(batch_size), int(loader.num_workers),
            int(isinstance(loader.dataset, IterableDataset)), int(own_collate), int(size))


class ScopedLoaders:
    def __init__(self, adapter, observed, model, current_step, on_error):
        self.adapter, self.observed, self.model = adapter, observed, model
        self.current_step, self.on_error = current_step, on_error
        self._arrays = []          # [(local, attribute, array, id of its storage)]
        self._next_scale_step = 1
        self._count_forwards = False
        self._handle, self._counted = None, None     # (step, forwards, first leading size)
        self.enabled = adapter.framework == "torch"
        if self.enabled:
            try:
                self._search(sys._getframe(1))
            except Exception as error:     # never break the user's watch
                self.enabled = False
                on_error(error)

    def _search(self, frame):
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, IterableDataset
        seen = set()
        for user in user_frames(frame, LOADER_FRAMES):
            if len(seen) >= LOADERS_KEPT:
                break
            for local, value in list(user.f_locals.items()):
                if isinstance(value, DataLoader) and id(value) not in seen and \
                        len(seen) < LOADERS_KEPT:
                    seen.add(id(value))
                    self._note(local, value, torch, np, IterableDataset)
        if self._arrays:
            step = self.current_step()          # 0, or where a resumed run goes on
            self._note_scales(0 if step is None else int(step))

    def _note(self, local, loader, torch, np, iterable_type):
        row = loader_row(local, loader)
        self.observed.scoped_loaders.append(row)
        if row[1] >= 2 and row[4]:
            self._count_forwards = True
        if isinstance(loader.dataset, iterable_type):
            return
        for attribute, array in stored_arrays(loader.dataset, torch, np):
            if len(self._arrays) < STORED_ARRAYS_KEPT and \
                    all(a is not array for _, _, a, _ in self._arrays):
                self._arrays.append((str(local), attribute, array, _storage(array, torch)))

    def _note_scales(self, step):
        import numpy as np
        import torch
        kept = []
        for local, attribute, array, storage in self._arrays:
            if _storage(array, torch) != storage:
                continue                   # resized or replaced: no longer the data read
            self.observed.stored_data_scales.append(
                (int(step), local, attribute, _rms(array, torch, np)))
            kept.append((local, attribute, array, storage))
        self._arrays = kept

    def arm(self, step):
        """On a recorded step: the stored data's scale at the ruler's steps, and the
        counting hook on while the step runs."""
        if not self.enabled:
            return
        try:
            if self._arrays and step >= self._next_scale_step:
                self._note_scales(step)
                self._next_scale_step = max(1, step) * 2
            if self._count_forwards and len(self.observed.loader_batch_forwards) < \
                    FORWARD_STEPS_KEPT and self._handle is None:
                self._counted = [int(step), 0, -1]
                self._handle = self.model.register_forward_pre_hook(self._on_forward)
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def _on_forward(self, module, inputs):
        if not module.training:
            return
        counted = self._counted
        counted[1] += 1
        if counted[2] < 0 and inputs and hasattr(inputs[0], "shape") and \
                len(inputs[0].shape) >= 1:
            counted[2] = int(inputs[0].shape[0])

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
            if self._counted[1]:
                self.observed.loader_batch_forwards.append(tuple(self._counted))
            self._counted = None

    def close(self):
        """Once: the stored data's last scale, then every reference let go."""
        if self.enabled:
            self.disarm()
            try:
                step = self.current_step()
                if self._arrays and step is not None:
                    self._note_scales(int(step))
            except Exception as error:
                self.on_error(error)
        self.enabled, self._arrays, self.model = False, [], None


def _storage(array, torch):
    """What identifies the memory an array keeps (a replaced array has other memory)."""
    if torch.is_tensor(array):
        return (id(array), array.data_ptr(), tuple(array.shape))
    return (id(array), array.__array_interface__["data"][0], tuple(array.shape))
