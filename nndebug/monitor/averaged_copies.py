"""Copies of the watched model kept beside it - an exponential moving average of its weights,
an SWA ``AveragedModel``, a frozen reference - and how they changed over the run
(EMA_UPDATES_ROUNDED_AWAY and AVERAGED_COPY_BUFFERS_STALE, ``nndebug.rules.averaged_copies``).

The copy that is validated and saved is often not the model watch sees. Two silent ways it
stops following the weights it averages are read here:

- the copy is kept in 16 bits (bfloat16/float16) and updated in place: with a decay near 1
  the update ``(1 - decay) * (w - ema)`` is below half a 16-bit step for most values and
  rounds away, so most of the copy never changes while the model's weights all do
  (d8ahazard/sd_dreambooth_extension#1415);
- the copy averages its parameters only, and its floating-point buffers (batch-norm
  statistics, a running input scale) stay those of the moment it was copied while the
  model's own move on (pytorch/pytorch#84053, YU1ut/MixMatch-pytorch#16).

What is read: when watch starts, the locals of the calling frames (``COPY_FRAMES``, nndebug's
own not counted) that are torch modules, or objects holding one as an attribute (an EMA
helper's ``.module``/``.ema``), whose floating-point parameters have, in order, the shapes
of the model's and share no storage with them: a copy of the model. For each such copy (at
most ``COPIES_KEPT``) the first ``VALUES_PER_TENSOR`` values of up to ``TENSORS_PER_COPY``
parameter tensors and floating-point buffers are copied, the model's matching tensors too.
When the monitor closes (inside the user's function, while the copy still lives) they are
compared with what the tensors hold then. Kept in ``run.observed.averaged_copies`` as
``(local name, copy's parameter dtype, model's parameter dtype, parameter values compared,
copy's values that changed, model's values that changed, copy's values equal at close to
the model's rounded to the copy's dtype, buffers compared, copy's buffers left unchanged
while the model's changed and now differ)``.

Cost: nothing on any step; at watch start and at close one walk of a few frames' locals (a
type test per local) and, for a copy of the model, a few small tensor copies (about 0.1 ms
for the digits MLP). torch only: minigrad has no copy helpers an EMA is kept with.
"""
import sys
import weakref

from .caller_scope import user_frames

COPY_FRAMES = 8            # [design] callers' frames searched, nndebug's own not counted
COPIES_KEPT = 4            # [design] copies of the model followed at most
TENSORS_PER_COPY = 32      # [design] parameter tensors (and as many buffers) compared per copy
VALUES_PER_TENSOR = 256    # [design] values compared per tensor: a weight that moves moves
                           # in all of them (as foreign_networks.SNAPSHOT_VALUES)
HELPER_ATTRIBUTES = 16     # [design] attributes of a non-module local searched for a module


class AveragedCopies:
    def __init__(self, adapter, observed, model, on_error):
        self.observed, self.on_error = observed, on_error
        self.enabled = adapter.framework == "torch"
        self._copies = []      # [(local, weakref to the copy, parameter pairs, buffer pairs)]
        if self.enabled:
            try:
                self._copies = self._search(sys._getframe(1), model)
            except Exception as error:        # never break the user's watch
                self.enabled = False
                on_error(error)

    def read(self):
        """Once, at close: how the copies and the model changed since watch started."""
        if not self.enabled:
            return
        self.enabled = False
        try:
            for local, ref, parameters, buffers in self._copies:
                if ref() is not None:
                    self.observed.averaged_copies.append(_row(local, parameters, buffers))
        except Exception as error:            # never break the user's close
            self.on_error(error)
        finally:
            self._copies = []

    def _search(self, frame, model):
        import torch
        own = [p for p in model.parameters() if p.is_floating_point()]
        if not own:
            return []
        storages = {p.data_ptr() for p in own if p.numel()}
        found, seen = [], {id(model)}
        for user in user_frames(frame, COPY_FRAMES):
            for local, value in list(user.f_locals.items()):
                for module in _modules_in(value, torch):
                    if len(found) >= COPIES_KEPT:
                        return found
                    if id(module) in seen:
                        continue
                    seen.add(id(module))
                    copy = _snapshot_if_copy(module, model, own, storages)
                    if copy is not None:
                        found.append((str(local), weakref.ref(module), *copy))
        return found


def _modules_in(value, torch):
    """``value`` when it is a torch module, else the modules among its first attributes."""
    if isinstance(value, torch.nn.Module):
        return [value]
    attributes = getattr(value, "__dict__", None)
    if not isinstance(attributes, dict) or isinstance(value, type):
        return []
    return [v for v in list(attributes.values())[:HELPER_ATTRIBUTES]
            if isinstance(v, torch.nn.Module)]


def _snapshot_if_copy(module, model, own, storages):
    """(parameter pairs, buffer pairs) when ``module`` is a copy of ``model``, else None.
    A pair: (copy's tensor, model's tensor, copy's first values, model's first values)."""
    mine = [p for p in module.parameters() if p.is_floating_point()]
    if len(mine) != len(own) or any(tuple(a.shape) != tuple(b.shape) for a, b in zip(mine, own)):
        return None
    if any(p.numel() and p.data_ptr() in storages for p in mine):
        return None                           # holds the model itself (a wrapper of it)
    parameters = [_pair(a, b) for a, b in list(zip(mine, own))[:TENSORS_PER_COPY]]
    theirs = [b for b in model.buffers() if b.is_floating_point()]
    ours = [b for b in module.buffers() if b.is_floating_point()]
    buffers = [_pair(a, b) for a, b in _matched_buffers(ours, theirs)[:TENSORS_PER_COPY]]
    return parameters, buffers


def _matched_buffers(ours, theirs):
    """The copy's floating-point buffers paired with the model's, in order, by shape (an
    ``AveragedModel`` adds its own counter, which is not floating point)."""
    if len(ours) != len(theirs):
        return []
    return [(a, b) for a, b in zip(ours, theirs) if tuple(a.shape) == tuple(b.shape)]


def _first(tensor):
    return tensor.detach().reshape(-1)[:VALUES_PER_TENSOR].clone()


def _pair(copy_tensor, model_tensor):
    return copy_tensor, model_tensor, _first(copy_tensor), _first(model_tensor)


def _row(local, parameters, buffers):
    values = copy_changed = model_changed = equal = 0
    for copy_tensor, model_tensor, copy_start, model_start in parameters:
        copy_now, model_now = _first(copy_tensor), _first(model_tensor)
        values += copy_start.numel()
        copy_changed += int((copy_now != copy_start).sum())
        model_changed += int((model_now != model_start).sum())
        equal += int((copy_now == model_now.to(copy_now.dtype)).sum())
    stale = 0
    for copy_tensor, model_tensor, copy_start, model_start in buffers:
        copy_now, model_now = _first(copy_tensor), _first(model_tensor)
        if bool((copy_now == copy_start).all()) and not bool((model_now == model_start).all()) \
                and not bool((copy_now.to(model_now.dtype) == model_now).all()):
            stale += 1
    copy_dtype = str(parameters[0][0].dtype).replace("torch.", "") if parameters else ""
    model_dtype = str(parameters[0][1].dtype).replace("torch.", "") if parameters else ""
    return (local, copy_dtype, model_dtype, values, copy_changed, model_changed, equal,
            len(buffers), stale)
