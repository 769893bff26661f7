"""``model.load_state_dict(d)`` where ``d`` holds the model's own tensors
(BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS, ``nndebug.rules.aliased_loads``).

``model.state_dict()`` returns references to the live parameters and buffers, not copies.
A loop that keeps ``best = model.state_dict()`` (or ``model.state_dict().copy()``, a copy of
the dict only) at its best epoch holds tensors that every later optimizer step changes in
place; ``model.load_state_dict(best)`` at the end then copies each tensor onto itself, and
the "best" model returned is the last one. Nothing raises: the load succeeds, every key
matches.

One pre-hook on the watched model's ``load_state_dict`` (``register_load_state_dict_pre_hook``
of the root module: it runs once per call, before any tensor is copied) compares each
floating-point tensor of the model with the tensor the dict holds under the same name: the
same storage (same data pointer and shape) is the model's own. Free on every step; one
pointer comparison per tensor on each load. Kept in ``run.observed.aliased_state_loads`` as
``(step, tensors loaded from the model's own, floating-point tensors compared)`` (a declared
field of ``nndebug.observed.Observed``: saved and loaded with the run).
"""
from ..adapters.base import nndebug_hook

MAX_LOADS_KEPT = 16      # [design] loads noted (a load per epoch stops here)


class AliasedLoads:
    def __init__(self, adapter, observed, model, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._handle = None
        if adapter.framework != "torch":
            return
        try:
            self._handle = model.register_load_state_dict_pre_hook(
                nndebug_hook(lambda *args: self._before_load(*args)))   # ours: private
                                                                         # copies leave it
        except Exception as error:        # a torch without the public pre-hook
            on_error(error)

    def _before_load(self, module, state_dict, prefix, *rest):
        try:
            if prefix or len(self.observed.aliased_state_loads) >= MAX_LOADS_KEPT:
                return                    # a submodule's part of the same load
            own, compared = count_own_tensors(module, state_dict)
            if compared:
                self.observed.aliased_state_loads.append((self._current_step(), own, compared))
        except Exception as error:        # never break the user's load
            self._on_error(error)

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def count_own_tensors(module, state_dict):
    """(how many of the module's floating-point tensors ``state_dict`` holds as the very same
    tensor storage, how many it holds under their names at all)."""
    own = compared = 0
    for name, live in module.state_dict(keep_vars=True).items():
        given = state_dict.get(name)
        if given is None or not hasattr(given, "data_ptr") or not live.is_floating_point():
            continue
        compared += 1
        if given.data_ptr() == live.data_ptr() and tuple(given.shape) == tuple(live.shape) \
                and live.numel() > 0:
            own += 1
    return own, compared
