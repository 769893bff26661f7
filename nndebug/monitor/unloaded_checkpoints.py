"""State dicts made for the watched model, still in the user's scope when the run ends, whose
weights never reached it (PRETRAINED_WEIGHTS_NOT_LOADED, ``nndebug.rules.pretrained_weights``).

A run meant to continue from a checkpoint (a resume, a fine-tune) can start from the
model's random initialisation without any error: ``load_state_dict(sd, strict=False)`` with
keys that carry a prefix the model's do not ('module.' from DataParallel, 'model.' from a
Lightning module: pytorch/examples#1029), a loader that returns a NEW model called on an
instance and its result dropped (Lightning's ``load_from_checkpoint`` classmethod,
Lightning-AI/pytorch-lightning#4789), a load into a copy that is not the model trained. The
checkpoint is usually still a local of the training function when the run ends.

What is read: when watch starts, the locals of the calling frames (``CHECKPOINT_FRAMES``,
nndebug's own not counted) that are dicts of tensors, or dicts holding such a dict one level
down (``{"state_dict": {...}}``, ``{"model_state_dict": ...}``). Such a dict is a state dict of
the watched model when its keys name at least half of the model's weight matrices (2+
dimensions) with their shapes - under the same names, or the names with one prefix added or
removed. A dict holding any of the model's own tensors (``model.state_dict()`` kept by
reference) is the model itself and is left out. For up to ``CHECKPOINT_WEIGHTS_COMPARED``
matched weights the relative distance ``|w_model - w_dict| / |w_dict|`` is computed on the
device, with one host transfer per dict: a model that was loaded from the dict starts at
distance 0; one that never got it starts about as far as two independent draws are. When
the monitor closes (inside the user's function, while its locals live) the same dicts, if
still in scope, are compared again. Kept in ``run.observed.unloaded_checkpoints`` as
``(local name, key prefix ('' the model's names, 'p.' with p. before them, '-p.' without
the model's p.), weights matched, weight matrices of the model, median relative distance
at watch start, the same at close or -1.0 when the dict was gone)`` (a declared field of
``nndebug.observed.Observed``: saved and loaded with the run). A dict made during the run
(a best-epoch snapshot) is not in scope when watch starts and is never read.

Cost: nothing on any step; at watch start and at close one walk of a few frames' locals (a
type test per local); the distances only for dicts that match the model (resumed and
fine-tuned runs; about 0.1 ms for the digits MLP).
"""
import sys

from .caller_scope import user_frames

CHECKPOINT_FRAMES = 8            # [design] callers' frames searched, nndebug's own not counted
                                 # (the loop's function, its callers: where a checkpoint is
                                 # loaded and the model trained)
CHECKPOINT_MAX_ENTRIES = 20000   # [design] larger dicts are not a state dict read here
CHECKPOINT_WEIGHTS_COMPARED = 8  # [design] matched weight matrices whose distance is computed
CHECKPOINT_DICTS_KEPT = 4        # [design] matching dicts noted at most
CHECKPOINT_PREFIXES_TRIED = 8    # [design] prefixes of the dict's names tried


class UnloadedCheckpoints:
    def __init__(self, adapter, observed, model, on_error):
        self.observed, self.on_error = observed, on_error
        self.model = model
        self.enabled = adapter.framework == "torch"
        self._found = []       # [(id of the dict, entries, local, prefix, matched, weights,
                               #   median distance at start)] until close
        if self.enabled:
            try:
                self._found = self._search(sys._getframe(1), None)
            except Exception as error:        # never break the user's watch
                self.enabled = False
                on_error(error)

    def read(self):
        """Once, at close: how far the model ended from each state dict found at start,
        when the dict is still in scope."""
        if not self.enabled:
            return
        self.enabled = False
        try:
            ended = {row[0]: row[-1] for row in
                     self._search(sys._getframe(1), {row[0] for row in self._found})}
            for key, _, local, prefix, matched, weights, started in self._found:
                self.observed.unloaded_checkpoints.append(
                    (local, prefix, matched, weights, started, ended.get(key, -1.0)))
        except Exception as error:            # never break the user's close
            self.on_error(error)
        finally:
            self.model, self._found = None, []

    def _search(self, frame, only):
        """The state dicts of the model among the callers' locals (only the dicts whose ids
        are in ``only`` when given), each with the model's median distance from it now."""
        import torch
        named = list(self.model.named_parameters())
        own = {p.data_ptr() for _, p in named if p.numel()}
        weights = [(name, p) for name, p in named if p.dim() >= 2 and p.is_floating_point()]
        found, seen = [], set()
        if not weights:
            return found
        for user in user_frames(frame, CHECKPOINT_FRAMES):
            if len(found) >= CHECKPOINT_DICTS_KEPT:
                break
            for local, value in list(user.f_locals.items()):
                for state in _state_dicts(value, torch):
                    if id(state) in seen or (only is not None and id(state) not in only):
                        continue
                    seen.add(id(state))
                    row = _compare(state, weights, own, torch)
                    if row is not None and len(found) < CHECKPOINT_DICTS_KEPT:
                        found.append((id(state), len(state), str(local), *row))
        return found


def _state_dicts(value, torch):
    """``value`` if it is a dict of tensors, and the dicts of tensors among its values."""
    if not isinstance(value, dict) or not value or len(value) > CHECKPOINT_MAX_ENTRIES:
        return []
    if any(torch.is_tensor(v) for v in value.values()):
        return [value]
    return [v for v in value.values() if isinstance(v, dict) and v and len(v) <= CHECKPOINT_MAX_ENTRIES
            and any(torch.is_tensor(t) for t in v.values())]


def _compare(state, weights, own, torch):
    """(prefix, matched, weight matrices, median relative distance) when ``state`` holds the
    model's weights under its names (or with one prefix added or removed), else None."""
    tensors = {k: v for k, v in state.items() if isinstance(k, str) and torch.is_tensor(v)}
    if any(v.numel() and v.data_ptr() in own for v in tensors.values()):
        return None                           # the model's own tensors: not a checkpoint
    prefix, pairs = _match(tensors, weights)
    if len(pairs) * 2 < len(weights) or not pairs:
        return None
    with torch.no_grad():
        distances = torch.stack([
            (p.detach().float() - v.detach().to(p.device).float()).norm()
            / v.detach().to(p.device).float().norm().clamp_min(1e-12)
            for p, v in pairs[:CHECKPOINT_WEIGHTS_COMPARED]])
        values = sorted(float(d) for d in distances.cpu().tolist())
    return prefix, len(pairs), len(weights), values[len(values) // 2]


def _match(tensors, weights):
    """The prefix under which ``tensors`` names the most weights, and the (weight, tensor)
    pairs it names: '' the same names, 'p.' each name with p. before it, '-p.' each of the
    dict's names is the model's with p. removed."""
    def pairs_for(key_of):
        found = []
        for name, p in weights:
            v = tensors.get(key_of(name))
            if v is not None and v.is_floating_point() and tuple(v.shape) == tuple(p.shape):
                found.append((p, v))
        return found

    best = ("", pairs_for(lambda name: name))
    first_name = weights[0][0]
    prefixes = {key[:len(key) - len(first_name)] for key in tensors
                if key.endswith("." + first_name)}
    for prefix in sorted(prefixes)[:CHECKPOINT_PREFIXES_TRIED]:     # a prefix the dict's names carry
        found = pairs_for(lambda name, p=prefix: p + name)
        if len(found) > len(best[1]):
            best = (prefix, found)
    parts = first_name.split(".")
    for cut in range(1, len(parts)):         # a prefix the model's names carry
        removed = ".".join(parts[:cut]) + "."
        found = pairs_for(lambda name, r=removed: name[len(r):] if name.startswith(r)
                          else name)
        if len(found) > len(best[1]):
            best = ("-" + removed, found)
    return best
