"""Hook handles and the plumbing behind ``Module.register_full_backward_hook``.

A module's backward hook wants two things the engine does not hand out directly:
the gradient with respect to the module's *own* inputs (``grad_input``) and with
respect to its outputs (``grad_output``). The trick (the same one PyTorch uses) is
to route every tensor input and output through an ``identity`` primitive. Each
identity output is a fresh tensor that only this module touches, so a tensor hook
on it sees precisely this module's gradient, never the sum over other uses of the
same tensor elsewhere in the model.
"""
import itertools
from collections import OrderedDict

import numpy as np

from ..tensor import Tensor

_next_hook_id = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*_hook``; ``remove()`` takes the hook out again.

    Also a context manager: ``with module.register_forward_hook(fn): ...`` removes
    the hook on exit, even when the block raises.
    """

    def __init__(self, hooks_dict):
        self.id = next(_next_hook_id)
        self.hooks_dict = hooks_dict

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def add_hook(hooks_dict, hook, prepend=False):
    """Store ``hook`` in an ordered hooks dict and return its handle."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    if prepend:
        hooks_dict.move_to_end(handle.id, last=False)
    return handle


# Hooks that every module call runs, before the module's own (torch's
# ``register_module_forward_pre_hook`` / ``register_module_forward_hook``): a tool that must
# see modules the model does not register (built inside forward, kept in a Python list)
# listens here, since no walk over the model's tree can find them.
global_forward_pre_hooks = OrderedDict()
global_forward_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    """``hook(module, inputs)`` before every module's forward; a returned value replaces
    the inputs. Returns a handle with ``.remove()``."""
    return add_hook(global_forward_pre_hooks, hook)


def register_module_forward_hook(hook):
    """``hook(module, inputs, output)`` after every module's forward; a returned value
    replaces the output. Returns a handle with ``.remove()``."""
    return add_hook(global_forward_hooks, hook)


def _identity(tensor):
    from .. import ops
    return ops.REGISTRY["identity"].apply(tensor)


def _as_array(value):
    if value is None:
        return None
    return np.asarray(value.data if isinstance(value, Tensor) else value)


class BackwardHookCall:
    """The backward hooks of one module for one forward call.

    ``wrap_inputs`` runs before ``forward``, ``wrap_outputs`` after it. When the
    gradients arrive during backward, the module's backward pre-hooks see (and may
    replace) ``grad_output``; its full backward hooks see ``grad_input`` and
    ``grad_output`` and may replace ``grad_input``.

    With several inputs needing gradients, the engine hands their gradients over one
    at a time, so the hooks run when the last of them arrives. A hook may then only
    replace that last one: the earlier ones have already flowed on, and trying to
    change them raises an error rather than being silently ignored.
    """

    def __init__(self, module):
        self.module = module
        self.n_inputs = 0
        self.input_grads = []
        self.wrapped_inputs = {}       # input index -> identity tensor the forward used
        self.expected_inputs = set()   # indices whose gradient backward will deliver
        self.pending_inputs = set()
        self.n_outputs = 0
        self.output_grads = []
        self.expected_outputs = set()
        self.pending_outputs = set()

    # --- forward side -------------------------------------------------------
    def wrap_inputs(self, args):
        self.n_inputs = len(args)
        self.input_grads = [None] * self.n_inputs
        wrapped = list(args)
        for index, value in enumerate(args):
            if isinstance(value, Tensor) and value.requires_grad:
                twin = _identity(value)
                twin.register_hook(lambda grad, index=index: self._on_input_grad(index, grad))
                self.wrapped_inputs[index] = twin
                wrapped[index] = twin
        return tuple(wrapped)

    def wrap_outputs(self, output):
        single = isinstance(output, Tensor)
        outputs = (output,) if single else output
        if not isinstance(outputs, (tuple, list)):
            return output   # not tensors: nothing to hook
        self.n_outputs = len(outputs)
        self.output_grads = [None] * self.n_outputs
        self.expected_inputs = self._inputs_reached_from(outputs)
        self.pending_inputs = set(self.expected_inputs)
        wrapped = list(outputs)
        for index, value in enumerate(outputs):
            if isinstance(value, Tensor) and value.requires_grad:
                twin = _identity(value)
                twin.register_hook(lambda grad, index=index: self._on_output_grad(index, grad))
                self.expected_outputs.add(index)
                wrapped[index] = twin
        self.pending_outputs = set(self.expected_outputs)
        if single:
            return wrapped[0]
        return type(output)(wrapped) if isinstance(output, tuple) else wrapped

    def _inputs_reached_from(self, outputs):
        """Indices of wrapped inputs that the outputs depend on (only these get gradients)."""
        targets = {id(t): index for index, t in self.wrapped_inputs.items()}
        found, seen = set(), set()
        stack = [t for t in outputs if isinstance(t, Tensor)]
        while stack and len(found) < len(targets):
            tensor = stack.pop()
            if id(tensor) in seen:
                continue
            seen.add(id(tensor))
            if id(tensor) in targets:
                found.add(targets[id(tensor)])
                continue
            if tensor._node is not None:
                stack.extend(p for p in tensor._node.parents if p.requires_grad)
        return found

    # --- backward side ------------------------------------------------------
    def _on_output_grad(self, index, grad):
        self.output_grads[index] = grad
        self.pending_outputs.discard(index)
        if self.pending_outputs:
            return None
        self.pending_outputs = set(self.expected_outputs)   # ready for another backward
        replaced = self._run_pre_hooks(index)
        if not self.expected_inputs:
            self._run_hooks_without_input_grads()
        return replaced

    def _run_pre_hooks(self, last_index):
        original = list(self.output_grads)
        for hook in list(self.module._backward_pre_hooks.values()):
            result = hook(self.module, tuple(self.output_grads))
            if result is None:
                continue
            result = _check_count(result, self.n_outputs, "grad_output", self.module)
            self.output_grads = [_as_array(g) for g in result]
        for index in range(self.n_outputs):
            if index != last_index and self.output_grads[index] is not original[index]:
                raise RuntimeError(
                    f"a backward pre-hook of {type(self.module).__name__} replaced grad_output[{index}], "
                    "but that gradient had already flowed on (the module has several outputs); "
                    "only the last output's gradient can be replaced here")
        return self.output_grads[last_index]

    def _run_hooks_without_input_grads(self):
        grad_input = (None,) * self.n_inputs
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, tuple(self.output_grads))
            if result is not None and any(g is not None for g in result):
                raise RuntimeError(
                    f"a backward hook of {type(self.module).__name__} returned gradients, but no "
                    "input of this module requires a gradient; return None instead")

    def _on_input_grad(self, index, grad):
        self.input_grads[index] = grad
        self.pending_inputs.discard(index)
        if self.pending_inputs:
            return None
        self.pending_inputs = set(self.expected_inputs)
        original = list(self.input_grads)
        grads = list(self.input_grads)
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, tuple(grads), tuple(self.output_grads))
            if result is None:
                continue
            result = _check_count(result, self.n_inputs, "grad_input", self.module)
            grads = [_as_array(g) for g in result]
        for other in self.expected_inputs:
            if other != index and grads[other] is not original[other]:
                raise RuntimeError(
                    f"a backward hook of {type(self.module).__name__} replaced grad_input[{other}], "
                    "but that gradient had already flowed on (several inputs need gradients); "
                    f"only grad_input[{index}], the last to arrive, can be replaced")
        self.input_grads = [None] * self.n_inputs
        return grads[index]


def _check_count(result, expected, what, module):
    if not isinstance(result, (tuple, list)):
        result = (result,)
    if len(result) != expected:
        raise RuntimeError(
            f"a backward hook of {type(module).__name__} returned {len(result)} {what} entries, "
            f"expected {expected} (one per tensor {what.split('_')[1]}, None where there is none)")
    return result


def new_hooks_dict():
    return OrderedDict()
