"""Module and Parameter: the bookkeeping that turns functions into layers.

A ``Module`` owns three kinds of state, each in its own ordered dict:

* ``_parameters``: tensors the optimizer trains (``Parameter``),
* ``_buffers``: tensors that are state but not trained (batch-norm running means),
* ``_modules``: child modules, so a model is a tree.

Assigning an attribute files the value into the right dict (``__setattr__``), and
every walk over the model (``named_parameters``, ``state_dict``, ``train``) follows
that tree in insertion order. The names it produces ("0.weight", "encoder.bias")
are PyTorch's, so a state dict copies one to one between the frameworks.
"""
import copy
from collections import OrderedDict, namedtuple

import numpy as np

from ..autograd import is_grad_enabled, no_grad
from ..tensor import Tensor, _to_array, get_default_dtype
from .arguments import check_device
from .hooks import (BackwardHookCall, add_hook, global_forward_hooks, global_forward_pre_hooks,
                    register_module_forward_hook, register_module_forward_pre_hook)  # noqa: F401


class Parameter(Tensor):
    """A tensor that is a trainable part of a module (``requires_grad=True`` by default).

    ``Parameter(tensor)`` shares the tensor's storage and keeps its dtype, as torch
    does; other data follows ``minigrad.tensor``'s rules (a NumPy array keeps its
    dtype, Python floats take the default float dtype) unless ``dtype`` says otherwise.
    """

    def __init__(self, data=None, requires_grad=True, dtype=None):
        if data is None:
            data = np.empty((0,), dtype=dtype or get_default_dtype())
        if isinstance(data, Tensor):
            array = data.data if dtype is None else data.data.astype(dtype, copy=False)
            copy_data = False
        else:
            array = _to_array(data, dtype)
            copy_data = array is data
        super().__init__(array, requires_grad=requires_grad, dtype=array.dtype, _copy=copy_data)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.data.copy(), requires_grad=self.requires_grad, dtype=self.dtype)
        result.grad = None if self.grad is None else self.grad.copy()
        memo[id(self)] = result
        return result


_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _plain_array(value):
    """A NumPy array from a minigrad tensor, a torch tensor or array-like data."""
    if isinstance(value, Tensor):
        return value.data
    if hasattr(value, "detach") and hasattr(value, "cpu") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of every layer and model; subclass it and define ``forward``.

    ``module(x)`` runs the forward pre-hooks (global ones first), ``forward``, then the
    forward hooks (global ones first), and (when backward hooks are registered) routes
    inputs and outputs through identity primitives so the backward hooks see this
    module's gradients.
    """

    training: bool

    def __init__(self):
        # object.__setattr__: our own __setattr__ needs these dicts to exist already
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function; '
            "define forward(self, ...) in your subclass")

    # --- attribute registration --------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call; "
                                     "call super().__init__() first in your __init__")
            self._forget(name)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as parameter {name!r} "
                                "(a minigrad.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign a submodule before Module.__init__() call; "
                                     "call super().__init__() first in your __init__")
            self._forget(name)
            modules[name] = value
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module {name!r} "
                                "(a minigrad.nn.Module or None expected)")
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", {}):
            self._buffers[name] = _as_buffer(name, value)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            self.__dict__[table].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        # only called when normal lookup fails: look in the three registries
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    def register_parameter(self, name, param):
        """Add a parameter under ``name`` (``None`` reserves the name, e.g. bias=False)."""
        _check_name(self, name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot register {type(param).__name__} as parameter {name!r} "
                            "(a minigrad.nn.Parameter or None expected)")
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add state that is saved in ``state_dict`` but not trained (e.g. running_mean)."""
        _check_name(self, name, "buffer")
        self._forget(name)
        self._buffers[name] = _as_buffer(name, tensor)
        if not persistent:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        _check_name(self, name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a minigrad.nn.Module subclass")
        self._forget(name)
        self._modules[name] = module

    register_module = add_module

    # --- walking the tree ---------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Every module in the tree with its qualified name; the root is ``""``."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, table, prefix, recurse, remove_duplicate):
        seen = set()
        walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in walk:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) pairs, torch's naming; a shared parameter appears once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target):
        """The module at a dotted path such as ``"0.conv"`` (``""`` is the root)."""
        module = self
        if target == "":
            return module
        for part in target.split("."):
            if part not in module._modules or module._modules[part] is None:
                raise AttributeError(f"{type(module).__name__} has no submodule {part!r} "
                                     f"(looking up {target!r})")
            module = module._modules[part]
        return module

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"{type(module).__name__} has no parameter {name!r}")
        return module._parameters[name]

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule (children first) and on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- modes and gradients ------------------------------------------------
    def train(self, mode=True):
        """Set training mode (dropout active, batch-norm uses batch statistics)."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be a bool, got {type(mode).__name__}")
        for module in self.modules():
            module.training = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clear the gradients of every parameter (None by default, as torch does)."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad = np.zeros_like(param.grad)

    # --- dtype ----------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Convert float parameters and buffers to a dtype, in place; devices other than
        "cpu" are not available in minigrad."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for arg in args:
            if isinstance(arg, str) and arg.split(":")[0] in ("cpu", "cuda", "mps"):
                device = arg
            else:
                dtype = arg
        check_device(device)
        if dtype is None:
            return self
        dtype = np.dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"Module.to only converts to float dtypes, got {dtype}")
        for param in self.parameters():
            _convert(param, dtype)
        for buf in self.buffers():
            if buf.dtype.kind == "f":
                _convert(buf, dtype)
        return self

    def double(self):
        return self.to(np.float64)

    def float(self):
        return self.to(np.float32)

    def cpu(self):
        return self

    # --- state dict -------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """An ordered dict name -> np.ndarray copy of every parameter and persistent buffer.

        Names follow torch ("0.weight", "1.running_mean"); with ``keep_vars=True``
        the values are the tensors themselves instead of copies.
        """
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.data.copy()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.data.copy()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination, prefix + name + ".", keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copy values into this module's parameters and buffers, in place.

        Everything is checked before anything is copied, so a failed load leaves the
        module untouched. Values may be NumPy arrays, minigrad tensors or torch
        tensors; each keeps the dtype of the parameter it lands in.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict expects a dict name -> array, got "
                            f"{type(state_dict).__name__}")
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict]
        unexpected = [key for key in state_dict if key not in own]
        problems = []
        arrays = {}
        for key, target in own.items():
            if key not in state_dict:
                continue
            array = _plain_array(state_dict[key])
            if array.shape != target.shape:
                problems.append(f"size mismatch for {key}: copying a value of shape {array.shape} "
                                f"from the state dict, the shape in the current model is "
                                f"{target.shape}")
            arrays[key] = array
        if strict and unexpected:
            problems.insert(0, "Unexpected key(s) in state_dict: "
                            + ", ".join(f'"{k}"' for k in unexpected) + ".")
        if strict and missing:
            problems.insert(0, "Missing key(s) in state_dict: "
                            + ", ".join(f'"{k}"' for k in missing) + ".")
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(problems)
                               + "\nNothing was loaded. Check that the state dict comes from the "
                               "same architecture (or pass strict=False to skip missing and "
                               "unexpected keys).")
        with no_grad():
            for key, array in arrays.items():
                target = own[key]
                target.data[...] = array.astype(target.dtype, copy=False)
        return _IncompatibleKeys(missing, unexpected)

    # --- hooks --------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, prepend=False):
        """``hook(module, inputs)`` before forward; a returned value replaces the inputs."""
        return add_hook(self._forward_pre_hooks, hook, prepend)

    def register_forward_hook(self, hook, prepend=False):
        """``hook(module, inputs, output)`` after forward; a returned value replaces the output."""
        return add_hook(self._forward_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` once this module's input gradients are known.

        Both are tuples of arrays (None where a tensor needs no gradient), one entry
        per positional input / per output. A returned tuple replaces ``grad_input``.
        """
        return add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` before this module's backward; may replace grad_output."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or global_forward_pre_hooks or global_forward_hooks):
            return self.forward(*args, **kwargs)  # no hooks (the usual case): nothing to route
        for hook in [*global_forward_pre_hooks.values(), *self._forward_pre_hooks.values()]:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward_call = None
        if (self._backward_hooks or self._backward_pre_hooks) and is_grad_enabled():
            backward_call = BackwardHookCall(self)
            args = backward_call.wrap_inputs(args)
        output = self.forward(*args, **kwargs)
        for hook in [*global_forward_hooks.values(), *self._forward_hooks.values()]:
            result = hook(self, args, output)
            if result is not None:
                output = result
        if backward_call is not None:
            output = backward_call.wrap_outputs(output)
        return output

    # --- printing -----------------------------------------------------------------
    def extra_repr(self):
        """The text between the parentheses of this module's repr (override it)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _indent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __deepcopy__(self, memo):
        result = type(self).__new__(type(self))
        memo[id(self)] = result
        for key, value in self.__dict__.items():
            object.__setattr__(result, key, copy.deepcopy(value, memo))
        return result


def _check_name(module, name, kind):
    if "_parameters" not in module.__dict__:
        raise AttributeError(f"cannot register a {kind} before Module.__init__() call")
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if name == "" or "." in name:
        raise KeyError(f'{kind} name can\'t be empty or contain ".", got {name!r}')
    if hasattr(type(module), name):
        raise KeyError(f"attribute {name!r} already exists on {type(module).__name__}")


def _as_buffer(name, value):
    if value is None or isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return Tensor(value, dtype=value.dtype)
    raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r} "
                    "(a minigrad Tensor, np.ndarray or None expected)")


def _convert(tensor, dtype):
    if tensor.dtype != dtype:
        tensor.data = tensor.data.astype(dtype)
        if tensor.grad is not None:
            tensor.grad = tensor.grad.astype(dtype)
