"""Which weights a "restore the best checkpoint" after training put back (torch).

Early stopping and best-checkpoint loops save the weights at their best validation pass and
load them back at the end. Whether the loop chose well shows only by comparing what was
loaded with what the model held at each validation pass (real-bug batch 139): a reference
"best" overwritten by the last epoch's loss, or by a training batch's loss, loads the
weights of a late, over-fitted epoch (held-out accuracy 0.67 against 0.88), while the fixed
twin loads the best epoch's - and a run that restored its best weights has answered its
own over-fitting.

At each step given a ``val_loss``, a fingerprint of the model's weights is taken: each
floating-point tensor's sum (in float64), stacked into one vector on the device (one reduction per
tensor, once per validation pass; no host copy). A pre-hook on the model's
``load_state_dict`` takes the same fingerprint of the dict being loaded. When findings are
asked for, the fingerprints travel to the host in one copy and
``run.observed.restored_checkpoints`` gets (kind, step, [sums]) rows, kind "validation" or
"load", the first ``VALIDATIONS_KEPT`` passes and ``LOADS_KEPT`` loads
(``rules.context.restored_checkpoint`` matches them).

(real-bug batch 266) A pre-hook on the model's ``state_dict`` notes the steps at which the
loop itself took the weights (``best = copy.deepcopy(model.state_dict())``,
``torch.save(model.state_dict(), "best.pt")``; the monitor's own keep_vars reads are not
counted): rows
("save", step, []), the first ``SAVES_KEPT``. A loop that keeps the best pass's weights and
never loads them back ends with the last pass's (``rules/unrestored_best.py``).
"""
from ..adapters.base import nndebug_hook

VALIDATIONS_KEPT = 512   # [design] validation passes fingerprinted (an epoch each: plenty)
LOADS_KEPT = 8           # [design] loads fingerprinted
SAVES_KEPT = 512         # [design] steps at which the loop took the weights (one per pass)


class RestoredCheckpoints:
    def __init__(self, adapter, observed, model, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self._current_step, self._on_error = current_step, on_error
        self.model = model
        self.names = None         # the floating-point tensors fingerprinted, in order
        self.validations, self.loads = [], []   # [(step, device vector of sums)]
        self.saves = []           # steps at which the loop took model.state_dict()
        self._handle = self._save_handle = None
        self._own_read = False    # inside the fingerprint's own state_dict()
        if adapter.framework != "torch" or model is None:
            return
        try:
            self._handle = model.register_load_state_dict_pre_hook(
                nndebug_hook(lambda *args: self._before_load(*args)))
        except Exception as error:        # a torch without the public pre-hook
            on_error(error)
            self.model = None
            return
        try:
            self._save_handle = model.register_state_dict_pre_hook(
                nndebug_hook(lambda *args: self._before_save(*args)))
        except Exception:                 # a torch without it: no "save" rows
            self._save_handle = None

    def saw_validation(self, step):
        if self.model is None or len(self.validations) >= VALIDATIONS_KEPT:
            return
        try:
            self._own_read = True
            try:
                state = self.model.state_dict(keep_vars=True)
            finally:
                self._own_read = False
            if self.names is None:
                self.names = [name for name, t in state.items()
                              if hasattr(t, "is_floating_point") and t.is_floating_point()]
            if not self.names:            # (real-bug batch 301) a model that registers no
                self.model = None         # float state (its parts in a plain list): nothing
                return                    # a checkpoint of it could restore
            self.validations.append((step, _sums([state.get(name) for name in self.names])))
        except Exception as error:        # never break the user's step
            self._on_error(error)
            self.model = None

    def _before_save(self, module, prefix, keep_vars=False, *rest):
        if self._own_read or keep_vars or prefix or len(self.saves) >= SAVES_KEPT:
            return                        # the monitor's own reads (keep_vars), a wrapper's
        step = self._current_step()
        if not self.saves or self.saves[-1] != step:
            self.saves.append(step)

    def _before_load(self, module, state_dict, prefix, *rest):
        if prefix or self.names is None or len(self.loads) >= LOADS_KEPT:
            return                        # a submodule's part of the same load
        try:
            given = [state_dict.get(name) for name in self.names]
            if all(t is not None and hasattr(t, "shape") for t in given):
                self.loads.append((self._current_step(), _sums(given)))
        except Exception as error:        # never break the user's load
            self._on_error(error)

    def summarize(self):
        """The fingerprints to the host, into ``run.observed.restored_checkpoints``."""
        rows = []
        try:
            for kind, kept in (("validation", self.validations), ("load", self.loads)):
                for step, sums in kept:
                    rows.append((kind, int(step), [float(v) for v in sums.cpu().tolist()]))
            rows.extend(("save", int(step), []) for step in self.saves)
        except Exception as error:
            self._on_error(error)
            return
        self.observed.restored_checkpoints = rows

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._save_handle is not None:
            self._save_handle.remove()
            self._save_handle = None


def _sums(tensors):
    import torch
    with torch.no_grad():
        return torch.stack([t.detach().sum(dtype=torch.float64) for t in tensors])
