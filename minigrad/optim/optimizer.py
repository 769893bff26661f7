"""The Optimizer base class: parameter groups, per-parameter state, save and load.

An optimizer holds ``param_groups``, a list of dicts; each has ``"params"`` (a
list of parameters) and its own hyper-parameters (``"lr"``, ``"momentum"``...).
Changing ``group["lr"]`` between steps is how schedulers and LR finders work.
``state`` maps each parameter to what the update rule remembers about it
(momentum buffers, moment estimates, the step count).

Updates write into ``param.data`` in place, so every reference to a parameter
(the model, hooks, other tools) sees the new values.
"""
import copy
import itertools
from collections import defaultdict

import numpy as np

from ..autograd import enable_grad, no_grad
from ..tensor import Tensor, _Handle

_hook_keys = itertools.count()     # one key per registered hook, never reused


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: subclasses set ``defaults`` and implement ``_update``.

    ``step`` is the same loop for every rule: visit each parameter that has a
    gradient and hand it to ``_update`` with the direction to descend along, so a
    subclass only writes its update rule. (A subclass may still override ``step``
    itself, as in torch.)
    """

    def __init__(self, params, defaults):
        self._step_pre_hooks, self._step_post_hooks = {}, {}
        self.defaults = dict(defaults)
        self.state = defaultdict(dict)   # like torch: an unseen parameter reads as {}
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got a Tensor; pass model.parameters() or "
                            "[tensor]")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list; did the model define any "
                             "Parameters (and is model.parameters() called, not passed as a "
                             "used-up generator)?")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyper-parameters (defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"a param group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        if "params" not in group:
            raise ValueError(f"a param group must hold its parameters under 'params', got the "
                             f"keys {sorted(group)}; pass e.g. {{'params': model.parameters(), "
                             f"'lr': 0.01}}")
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs; "
                            "use a list")
        params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize minigrad Tensors, but one of the "
                                f"params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor (one computed from other "
                                 "tensors); optimize the Parameters it was computed from")
        if len({id(p) for p in params}) != len(params):
            raise ValueError("a parameter appears more than once in this param group")
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        held = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in held for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clear gradients before the next backward (they accumulate otherwise)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad = np.zeros_like(p.grad)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        ``closure`` (optional) re-evaluates the model and returns the loss, as torch's.
        The update itself runs under ``no_grad``: it is not part of any graph.
        """
        # what torch's step hooks get: step's positional arguments, the optimizer first
        args, kwargs = ((self,) if closure is None else (self, closure)), {}
        for hook in list(self._step_pre_hooks.values()):
            hook(self, args, kwargs)
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        grad = -p.grad if group.get("maximize") else p.grad
                        self._update(p, grad, group)
        for hook in list(self._step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before each ``step``, as torch's optimizers
        do (tools count steps this way without touching the loop); returns a handle whose
        ``remove()`` takes it off."""
        return self._add_step_hook(self._step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after each ``step``; returns a handle."""
        return self._add_step_hook(self._step_post_hooks, hook)

    @staticmethod
    def _add_step_hook(table, hook):
        if not callable(hook):
            raise TypeError(f"a step hook must be callable, got {type(hook).__name__}")
        key = next(_hook_keys)
        table[key] = hook
        return _Handle(table, key)

    def _update(self, p, grad, group):
        """Change ``p.data`` in place by this rule, given ``grad`` (already negated when
        ``maximize``) and the hyper-parameters of ``p``'s group."""
        raise NotImplementedError(f"{type(self).__name__} must define _update(p, grad, group) "
                                  "or override step()")

    def _evaluate(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # --- saving and loading -------------------------------------------------
    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        Parameters are referred to by their position across all groups (0, 1, ...),
        as torch does; arrays are deep copies, so later steps do not change them.
        """
        index_of, groups, next_index = {}, [], 0
        for group in self.param_groups:
            packed = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            indices = list(range(next_index, next_index + len(group["params"])))
            index_of.update({id(p): i for p, i in zip(group["params"], indices)})
            packed["params"] = indices
            next_index += len(indices)
            groups.append(packed)
        state = {index_of[id(p)]: copy.deepcopy(s) for p, s in self.state.items()
                 if id(p) in index_of and s}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict`` saved; group sizes must match this optimizer's."""
        if not isinstance(state_dict, dict) or "state" not in state_dict \
                or "param_groups" not in state_dict:
            raise ValueError("load_state_dict expects the dict returned by optimizer.state_dict(), "
                             "with 'state' and 'param_groups' keys")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has {len(saved_groups)} parameter groups, this "
                             f"optimizer has {len(self.param_groups)}")
        for i, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(f"loaded state dict contains a parameter group {i} of "
                                 f"{len(saved['params'])} parameters that doesn't match the size "
                                 f"of optimizer's group ({len(group['params'])})")
        param_of = {}
        for group, saved in zip(self.param_groups, saved_groups):
            param_of.update(zip(saved["params"], group["params"]))
        new_state = defaultdict(dict)
        for index, values in state_dict["state"].items():
            if index not in param_of:
                raise ValueError(f"loaded state refers to parameter index {index}, which no "
                                 "parameter group holds")
            p = param_of[index]
            entry = {}
            for key, value in values.items():
                value = copy.deepcopy(value)
                if isinstance(value, np.ndarray) and value.dtype.kind == "f" and key != "step":
                    if value.shape != p.shape:
                        raise ValueError(f"optimizer state {key!r} of parameter {index} has shape "
                                         f"{value.shape}, the parameter has shape {p.shape}")
                    value = value.astype(p.dtype, copy=False)
                entry[key] = value
            new_state[p] = entry
        self.state = new_state
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            restored = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
            restored["params"] = group["params"]
            new_groups.append(restored)
        self.param_groups = new_groups

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def lerp_(start, end, weight):
    """In place ``start += weight * (end - start)``, evaluated the way torch's lerp is.

    torch switches formula at weight 0.5 for accuracy; matching it keeps float64
    trajectories identical to torch's.
    """
    if abs(weight) < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)
    return start


def check_hyper(name, value, low=0.0, high=None, high_open=False):
    """Raise a clear ValueError for a hyper-parameter outside its valid range."""
    if value < low or (high is not None and (value >= high if high_open else value > high)):
        bracket = ")" if high_open else "]"
        upper = "inf)" if high is None else f"{high}{bracket}"
        raise ValueError(f"Invalid {name} value: {value}; it must lie in [{low}, {upper}")
