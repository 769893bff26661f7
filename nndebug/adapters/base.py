"""The adapter protocol: everything nndebug needs to know about a framework.

nndebug's checks, monitor and probes never import a framework. They talk to an
``Adapter``, which wraps one model and answers a small set of questions in plain
NumPy: what are the modules and parameters, what is the loss and its gradient,
what did each module receive and return, and how to put the user's state back
exactly as it was. A third framework fits in one file that implements this class.

Conventions every adapter follows:
- ``inputs`` given to a model may be one tensor, a tuple/list (passed as
  ``model(*inputs)``) or a dict (``model(**inputs)``); NumPy arrays are accepted
  and converted (float arrays to the model's float dtype, integers kept integer).
- Names are exactly those of the framework's ``named_modules()`` /
  ``named_parameters()`` ("" is the root module).
- Arrays handed back are NumPy copies; the user's tensors are never aliased.

What the gradient checks need on top (``record_calls``, ``module_vjp``,
``module_value``, and for engines whose primitives can be re-run alone
``primitive_value`` / ``primitive_vjp``) is described in the "checking backward
passes" section below; the records they exchange (``ModuleCall``,
``PrimitiveCall``, ``Recording``) are plain data defined in this file.
"""
import abc
import contextlib
import copy
import math
import random

import numpy as np


def not_numbers(adapter, value, array):
    """The TypeError for data that cannot become the model's tensors: another framework's
    tensor (named, with the conversion), or an array of text or Python objects."""
    from ..validation import FRAMEWORK_NAMES, framework_of, same_framework
    if framework_of(value) not in (None, adapter.framework):
        same_framework(adapter, value, "the data")
    what = "text" if array.dtype.kind in "US" else "Python objects"
    return TypeError(f"the data hold {what} (NumPy dtype {array.dtype}), which cannot become "
                     f"{FRAMEWORK_NAMES[adapter.framework]} tensors; pass float, integer or "
                     "boolean arrays (map class names to indices first)")


def nndebug_hook(fn):
    """Mark a hook as nndebug's own (a monitor's): private copies leave it behind, while
    the user's hooks are copied with the model."""
    fn._nndebug_owned = True
    return fn


def copy_of_model(model, memo):
    """``copy.deepcopy(model, memo)``, or a ValueError that says why a probe cannot work on
    this model. The probes (gradcheck, compare, overfit_one_batch, find_lr,
    check_dependencies) run a private copy so that the user's model, optimizer and RNG stay
    as they were; a module holding something that cannot be copied (a lock, an open file, a
    generator, a process pool) made them fail with copy's own TypeError, deep in its stack."""
    try:
        return copy.deepcopy(model, memo)
    except (TypeError, AttributeError, RuntimeError, copy.Error) as error:
        raise ValueError(
            f"nndebug works on a private copy of the model, and copying this "
            f"{type(model).__name__} failed ({type(error).__name__}: {error}). Expected: a "
            "model that copy.deepcopy can copy; found: an attribute it cannot (a lock, an "
            "open file, a generator, a process pool, a C++ handle). Keep such objects outside "
            "the module (pass them to forward, or hold them in the training loop), or give "
            "their holder a __deepcopy__ that shares them.") from error


def is_nndebug_hook(fn):
    """Ours, also inside the wrapper torch keeps some hooks in (a state-dict hook's
    ``_WrappedHook`` holds the function as ``.hook``)."""
    return bool(getattr(fn, "_nndebug_owned", False) or
                getattr(getattr(fn, "hook", None), "_nndebug_owned", False))


def owned_tensor_hook(fn):
    """``fn`` as a tensor hook of ours that never replaces the gradient (returns None)."""
    @nndebug_hook
    def hook(grad):
        fn(grad)
    return hook


class HookGroup:
    """One handle for many hooks: framework handles, and ``(table, key)`` entries put
    straight into a hook table (``TorchAdapter.add_tensor_hooks``)."""

    def __init__(self, handles=(), entries=()):
        self.handles, self.entries = list(handles), list(entries)

    def remove(self):
        for table, key in self.entries:
            table.pop(key, None)
        for handle in self.handles:
            handle.remove()
        self.handles, self.entries = [], []


class Adapter(abc.ABC):
    """One model of one framework, seen through framework-free questions."""

    framework = "abstract"
    # the float dtype of a model without float parameters (a private copy sets its own)
    dtype_without_parameters = np.dtype(np.float32)

    def __init__(self, model):
        self.model = model

    # --- structure -----------------------------------------------------------------
    # minigrad mirrors torch's Module and optimizer API, so the methods below have one
    # implementation for both; a third framework overrides what it spells differently.
    _structure_cache = None       # {what: list} inside structure_read_once, else None

    @contextlib.contextmanager
    def structure_read_once(self):
        """Inside, ``named_modules`` and ``named_parameters`` walk the model once and hand
        each caller its own copy of that list. ``watch()``'s set-up asks a dozen times (each
        observer finds its own layers), and on a deep model every walk is a Python generator
        step per module; nothing can change the model while the set-up runs."""
        self._structure_cache = {}
        try:
            yield
        finally:
            self._structure_cache = None

    def _structure(self, what, walk):
        cache = self._structure_cache
        if cache is None:
            return list(walk())
        if what not in cache:
            cache[what] = list(walk())
        return list(cache[what])

    def named_modules(self):
        """[(qualified name, module)] in definition order, root first as ""."""
        return self._structure("modules", self.model.named_modules)

    def named_parameters(self):
        """[(qualified name, parameter)] for every parameter (trainable or not)."""
        return self._structure("parameters", self.model.named_parameters)

    def requires_grad(self, parameter):
        """Whether the parameter is trainable."""
        return bool(parameter.requires_grad)

    def module_type(self, module):
        """The layer's class name ("Linear", "ReLU", ...): what rules reason about."""
        return type(module).__name__

    def module_children(self, module):
        return [m for _, m in self.named_children(module)]

    def named_children(self, module):
        """[(short name, child module)]."""
        return list(module.named_children())

    def is_leaf_module(self, module):
        return not self.named_children(module)

    def own_parameters(self, module):
        """[(short name, parameter)] that belong to this module itself, not its children."""
        child_ids = {id(p) for c in self.module_children(module) for _, p in self._params_of(c)}
        return [(n, p) for n, p in self._params_of(module) if "." not in n and id(p) not in child_ids]

    def _params_of(self, module):
        """[(name relative to module, parameter)], recursive."""
        return list(module.named_parameters())

    def parameter_count(self, trainable_only=True):
        # from the shapes: a NumPy copy of each parameter only to count it cost a copy of
        # the whole model (~44 MB on an 11M-parameter model) at every watch()
        return int(sum(math.prod(tuple(p.shape)) for _, p in self.named_parameters()
                       if self.requires_grad(p) or not trainable_only))

    # --- arrays ------------------------------------------------------------------
    @abc.abstractmethod
    def to_numpy(self, value):
        """A NumPy copy of a framework tensor (or of an array / number)."""

    @abc.abstractmethod
    def from_numpy(self, array, like=None):
        """A framework tensor holding ``array`` (on ``like``'s device if given)."""

    def grad_of(self, parameter):
        """The parameter's ``.grad`` as a NumPy copy, or None."""
        grad = getattr(parameter, "grad", None)
        return None if grad is None else self.to_numpy(grad)

    @abc.abstractmethod
    def set_parameter(self, parameter, array):
        """Overwrite a parameter's values in place (no graph, dtype kept)."""

    @abc.abstractmethod
    def float_dtype(self):
        """NumPy dtype of the model's first float parameter (float32 when there is none)."""

    def prepare(self, value, dtype=None):
        """User inputs/targets as framework tensors: arrays converted, structure kept.

        Float data takes ``dtype`` (default: the model's float dtype); integer and
        boolean data stay as they are (class indices must never become floats).
        """
        if isinstance(value, (tuple, list)):
            return type(value)(self.prepare(v, dtype) for v in value)
        if isinstance(value, dict):
            return {k: self.prepare(v, dtype) for k, v in value.items()}
        return self._prepare_one(value, dtype or self.float_dtype())

    @abc.abstractmethod
    def _prepare_one(self, value, dtype):
        """One tensor-like value to a framework tensor; floats cast to dtype."""

    def call_model(self, model, inputs):
        if isinstance(inputs, dict):
            return model(**inputs)
        if isinstance(inputs, (tuple, list)):
            return model(*inputs)
        return model(inputs)

    # --- evaluation --------------------------------------------------------------
    @abc.abstractmethod
    def loss_and_grads(self, inputs, targets, loss_fn, *, wrt_inputs=False):
        """(loss as float, {param name: grad array}, [input grad arrays or None]).

        Runs forward and backward without touching any parameter's ``.grad``.
        Parameters with no gradient (unused) get zeros. Raises a ValueError naming
        the shape if the loss is not a scalar.
        """

    @abc.abstractmethod
    def loss_value(self, inputs, targets, loss_fn):
        """The loss as a float, with no graph recorded."""

    # --- copies and the user's state ----------------------------------------------------------
    @abc.abstractmethod
    def private_copy(self, dtype=np.float64, *, hooks=True):
        """An adapter over a deep copy of the model, float parameters and buffers cast to
        ``dtype`` (integer buffers untouched), without grads. The user's hooks come with
        it (``hooks=False``: none), so the copy computes what the model computes; hooks
        nndebug itself installed (``nndebug_hook``) never do."""

    @abc.abstractmethod
    def capture_state(self):
        """Everything a tool could disturb: parameter and buffer values (and dtypes),
        grads, requires_grad flags, train/eval flags, hook tables and RNG states."""

    @abc.abstractmethod
    def restore_state(self, state):
        """Put back exactly what ``capture_state`` saw (values copied in place)."""

    @abc.abstractmethod
    def state_differences(self, state):
        """Human-readable list of what differs from ``state`` (empty when unchanged)."""

    def _module_state_differences(self, state, default_dtype):
        """The part of ``state_differences`` both frameworks share: train/eval flags, module
        hook tables, RNG streams and the default dtype (``default_dtype`` is the current one)."""
        problems = []
        for module, flag in state["training"]:
            if module.training != flag:
                problems.append(f"{type(module).__name__}: training {flag} -> {module.training}")
        for module in self.model.modules():
            for table, entries in state["hooks"].get(id(module), {}).items():
                if set(getattr(module, table)) != set(entries):
                    problems.append(f"{type(module).__name__}.{table}: hooks changed")
        if not self.rng_equal(self.get_rng_state(), state["rng"]):
            problems.append("RNG state changed")
        if "default_dtype" in state and default_dtype != state["default_dtype"]:
            problems.append(f"default dtype {state['default_dtype']} -> {default_dtype}")
        return problems

    @contextlib.contextmanager
    def preserved(self):
        """Run a block and then put the user's state back, also on errors."""
        state = self.capture_state()
        try:
            yield state
        finally:
            self.restore_state(state)

    # --- randomness ----------------------------------------------------------------
    # NumPy's and Python's global generators are saved here for every framework; an
    # adapter adds only its framework's own generators (``_framework_rng_*``).
    def get_rng_state(self):
        """Every RNG the framework's random layers draw from, and NumPy's and Python's."""
        return {"numpy": np.random.get_state(), "python": random.getstate(),
                **self._framework_rng_state()}

    def set_rng_state(self, state):
        np.random.set_state(state["numpy"])
        random.setstate(state["python"])
        self._set_framework_rng_state(state)

    @contextlib.contextmanager
    def forked_rng(self, seed=0):
        """Seed the RNGs, and yield ``replay()``: a call puts them back to that seeded state.

        Calling ``replay()`` before every evaluation gives dropout the same mask each
        time, which makes a stochastic model a deterministic function for finite
        differences. The user's RNG state is restored on exit.
        """
        saved = self.get_rng_state()
        try:
            self.seed(seed)
            # replayed by seeding again: the same state, at a fraction of the cost of saving
            # and restoring it (NumPy's get_state/set_state take ~35 us each, seeding every
            # generator ~9 us)
            yield lambda: self.seed(seed)
        finally:
            self.set_rng_state(saved)

    def seed(self, seed):
        np.random.seed(seed)
        random.seed(seed)
        self._seed_framework(seed)

    def rng_equal(self, a, b):
        """Whether two states from ``get_rng_state`` are the same (nothing was drawn between)."""
        def same(x, y):
            if isinstance(x, dict):
                return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
            if isinstance(x, (tuple, list)):
                if len(x) != len(y):
                    return False
                if x and type(x[0]) is int:   # Python's state: 625 ints, compared in C
                    return x == y
                return all(same(i, j) for i, j in zip(x, y))
            if isinstance(x, np.ndarray):
                return np.array_equal(x, y)
            if self.is_tensor(x):
                return self._rng_tensor_equal(x, y)
            return x == y
        return same(a, b)

    @abc.abstractmethod
    def _framework_rng_state(self):
        """The framework's own generators, as a dict to merge into ``get_rng_state``."""

    @abc.abstractmethod
    def _set_framework_rng_state(self, state):
        ...

    @abc.abstractmethod
    def _seed_framework(self, seed):
        ...

    def _rng_tensor_equal(self, a, b):
        """Equality of two framework tensors inside an RNG state (torch keeps its state in one)."""
        return np.array_equal(self.to_numpy(a), self.to_numpy(b))

    # --- hooks -----------------------------------------------------------------
    def add_forward_hook(self, module, fn):
        """Call ``fn(module, inputs, output)`` after the module's forward; returns a handle
        with ``.remove()``. The wrapper drops ``fn``'s return value, so a tool's hook can
        never replace the model's output."""
        @nndebug_hook
        def hook(mod, inputs, output):
            fn(mod, inputs, output)
        return module.register_forward_hook(hook)

    def add_forward_hooks(self, pairs):
        """``add_forward_hook`` for each ``(module, fn)`` of ``pairs``; returns one handle
        (a ``HookGroup``) that removes them all. ``fn`` must return None: its return value
        is not dropped by a wrapper here (an adapter may put it straight into the hook table)."""
        return HookGroup([self.add_forward_hook(module, fn) for module, fn in pairs])

    def add_forward_pre_hook(self, module, fn, with_kwargs=False):
        """Call ``fn(module, inputs)`` before the module's forward; returns a handle.
        ``with_kwargs``: ``fn(module, inputs, kwargs)``, with the keyword inputs where the
        framework's hooks see them (torch), else ``{}``."""
        @nndebug_hook
        def hook(mod, inputs):
            if with_kwargs:
                fn(mod, inputs, {})
            else:
                fn(mod, inputs)
        return module.register_forward_pre_hook(hook)

    @abc.abstractmethod
    def add_tensor_hook(self, tensor, fn):
        """Call ``fn(grad)`` with the gradient of a tensor when it is computed; returns a
        handle, or None if the tensor does not require a gradient."""

    def add_tensor_hooks(self, tensors, fns):
        """``add_tensor_hook(tensor, fn)`` for each pair; returns ONE handle whose
        ``remove()`` removes them all (a recorded step hooks every parameter)."""
        return HookGroup(handles=[h for h in map(self.add_tensor_hook, tensors, fns)
                                  if h is not None])

    @abc.abstractmethod
    def hook_counts(self):
        """{module name: number of hooks of every kind}: to prove nothing was left behind."""

    def backward_hooks(self, module):
        """Readable names of the user's hooks that can change this module's gradients:
        its own backward (pre-)hooks and tensor hooks on its own parameters."""
        found = []
        for table, what in (("_backward_hooks", "backward hook"),
                            ("_backward_pre_hooks", "backward pre-hook")):
            live = getattr(module, table, None)
            if isinstance(live, dict) and any(not is_nndebug_hook(f) for f in live.values()):
                found.append(f"a {what} on the module")
        for name, p in self.own_parameters(module) if hasattr(module, "named_parameters") else []:
            if any(not is_nndebug_hook(f) for f in self._tensor_hooks(p)):
                found.append(f"a tensor hook on its parameter {name}")
        return found

    def _tensor_hooks(self, tensor):
        """The hook functions registered on a tensor with ``register_hook``."""
        return []

    def is_training(self, module):
        return bool(module.training)

    # --- a tiny array namespace so statistics are reduced where the tensor lives ------------------
    @abc.abstractmethod
    def detach(self, tensor):
        """The tensor cut from the graph, still in the framework (no copy to the host)."""

    @property
    @abc.abstractmethod
    def xp(self):
        """Namespace of array functions on framework tensors (see ``ArrayNamespace``)."""

    @abc.abstractmethod
    def to_host(self, tensor):
        """One device-to-host transfer: a framework tensor to a NumPy array."""

    def is_tensor(self, value):
        return False

    def on_host(self, tensor):
        """Whether reading the tensor's values costs no device transfer (NumPy arrays: yes)."""
        return True

    def host_view(self, tensor):
        """The tensor's values as a NumPy array sharing its memory (no copy, no transfer), or
        None when the tensor lives on a device or NumPy cannot view its dtype."""
        data = getattr(tensor, "data", tensor)
        return data if isinstance(data, np.ndarray) else None

    def host_scalar(self, value):
        """The value of a one-element tensor that lives on the host, as a float, or None
        when another path must read it (a device tensor, not a tensor, an exotic dtype).
        The quick path of ``losses.loss_value``: it runs at every training step."""
        if type(value) is float or type(value) is int:       # ``loss.item()``; not a bool
            return float(value)
        data = getattr(value, "data", None)
        if type(data) is np.ndarray and data.size == 1 and data.dtype.kind == "f":
            return float(data.reshape(-1)[0])
        return None

    # --- optimizers ---------------------------------------------------------------
    def optimizer_parameters(self, optimizer):
        """The parameters an optimizer holds, over all its param groups."""
        return [p for group in optimizer.param_groups for p in group["params"]]

    def optimizer_learning_rates(self, optimizer):
        return [group["lr"] for group in optimizer.param_groups]

    def optimizer_groups(self, optimizer):
        """Each param group's settings (lr, weight_decay, betas, ...) without its tensors,
        plus ``parameters``: how many tensors the group holds."""
        return [{key: value for key, value in group.items() if key != "params"} |
                {"parameters": len(group["params"])} for group in optimizer.param_groups]

    def decouples_weight_decay(self, optimizer, group):
        """Whether the optimizer shrinks the weights apart from the gradient (AdamW) rather
        than adding weight_decay x w to the gradient (Adam's L2): the adapters know how."""
        return type(optimizer).__name__ == "AdamW"

    def optimizer_state(self, optimizer):
        """A deep copy of the optimizer's state (state_dict and param_groups)."""
        return copy.deepcopy(optimizer.state_dict())

    def restore_optimizer_state(self, optimizer, state):
        optimizer.load_state_dict(copy.deepcopy(state))


    # --- checking backward passes (gradcheck, locate, compare) ------------------------------
    # A check runs on a private float64 copy (``private_copy``). It records what every
    # module received and returned in one forward pass (``record_calls``), then re-runs
    # single modules on those inputs: ``module_value`` gives <output, cotangent> as a
    # float, ``module_vjp`` the gradient of that number w.r.t. the module's float inputs
    # and its own parameters. Engines that can re-run one primitive alone (minigrad)
    # also record each primitive call and implement ``primitive_value/primitive_vjp``.

    supports_primitives = False

    def version_counter(self, tensor):
        """How many times ``tensor``'s memory has been changed in place (a number that moves
        with every in-place operation), or None when the framework keeps no such count."""
        return None

    def float_leaves(self, value):
        """The float tensors inside ``value`` (a tensor, tuple/list or dict), in order."""
        return self._float_leaves(value)

    def _float_leaves(self, value):
        raise NotImplementedError

    def private_inputs(self, value):
        """``prepare(value)`` with every tensor copied: safe to perturb in place."""
        raise NotImplementedError

    def leaf_requires_grad(self, tensor):
        return bool(getattr(tensor, "requires_grad", False))

    def set_element(self, tensor, flat_index, value):
        """Overwrite one element (flat index) of a parameter or input tensor in place."""
        array = self.to_numpy(tensor)
        array.reshape(-1)[flat_index] = value
        self.set_parameter(tensor, array)

    @contextlib.contextmanager
    def default_dtype(self, dtype):
        """Make ``dtype`` the framework's default float dtype inside the block.

        A float64 check must not be spoiled by float32 constants a model creates in
        its forward (``zeros(n)``, scalars); the previous default is restored after.
        """
        yield

    def record_calls(self, inputs, targets=None, loss_fn=None, *, record_primitives=False):
        """Run the model (then ``loss_fn``) once and record every module call.

        Returns a ``Recording`` (see ``recording.py``). Each module's ``forward`` is
        wrapped for the duration of this one pass (so hooks, if any, are untouched); the
        inputs each call received, its outputs and the RNG state just before it are kept,
        so the call can be re-run alone with the same dropout mask. The loss becomes a
        last pseudo-call (``is_loss=True``) whose input is the model's output.
        """
        from .recording import record_calls
        return record_calls(self, inputs, targets, loss_fn, record_primitives=record_primitives)

    def _storage_id(self, tensor):
        return id(tensor)

    def _primitive_observer(self, callback):
        return contextlib.nullcontext()

    def _primitive_call(self, record, param_names):
        raise NotImplementedError

    def _snapshot(self, value):
        """A detached copy of a value made of tensors (nested in tuples, lists, dicts)."""
        raise NotImplementedError

    def module_value(self, call, cotangents, input_arrays=None):
        """<call's outputs, cotangents> as a float, re-running the call alone (no graph).

        ``input_arrays`` replace the recorded float inputs (same order); the module's
        parameters are whatever the (private) model holds now; the RNG state recorded
        before the call is replayed first.
        """
        raise NotImplementedError

    def module_vjp(self, call, cotangents, input_arrays=None, params=None):
        """(value, [grad per float input], {parameter name: grad}) of <outputs, cotangents>.

        Gradients come from the framework's own backward. ``params``: [(name, parameter)]
        to differentiate for (default: the module's own trainable parameters); inputs and
        parameters that get no gradient get zeros.
        """
        raise NotImplementedError

    def trainable_own_parameters(self, module):
        if not hasattr(module, "named_parameters"):
            return []
        return [(n, p) for n, p in self.own_parameters(module) if self.requires_grad(p)]

    def trace(self, inputs, targets, loss_fn):
        """One forward and backward pass that records, for every module call, its outputs,
        the gradient reaching them (grad_output) and the gradient it sends to its own
        inputs (grad_input); returns a ``Trace`` (see ``recording.py``).

        Meant for private copies (``compare`` runs it on one): float inputs are made to
        require grad, and each module's float inputs are routed through an identity
        "twin" (``_twin``) so the gradient seen there belongs to this module's use alone.
        """
        from .recording import trace
        return trace(self, inputs, targets, loss_fn)

    def _twin(self, tensor):
        """A new graph node with the tensor's values (identity), when it requires grad."""
        raise NotImplementedError

    def _require_grad(self, tensor):
        raise NotImplementedError

    def _replace_float(self, value, replacements):
        raise NotImplementedError

    def primitive_forward(self, primitive, arrays):
        """The primitive's output for ``arrays`` (its recorded kwargs), as a NumPy array."""
        raise NotImplementedError(f"{self.framework} cannot re-run single primitives")

    def primitive_value(self, primitive, arrays, cotangent):
        raise NotImplementedError(f"{self.framework} cannot re-run single primitives")

    def primitive_vjp(self, primitive, arrays, cotangent):
        raise NotImplementedError(f"{self.framework} cannot re-run single primitives")

    def engine_self_test(self):
        """(ok, sentence): does the engine add the gradients of a re-used tensor?"""
        return True, ""


from .recording import ModuleCall, PrimitiveCall, Recording, Trace, TraceCall  # noqa: E402,F401


class ArrayNamespace:
    """The functions nndebug's statistics use, with one meaning in every framework.

    ``axis=None`` reduces everything. ``std`` is the population standard deviation.
    Results stay framework tensors until ``Adapter.to_host``.
    """

    def asfloat(self, x): raise NotImplementedError
    def abs(self, x): raise NotImplementedError
    def sqrt(self, x): raise NotImplementedError
    def mean(self, x, axis=None): raise NotImplementedError
    def sum(self, x, axis=None): raise NotImplementedError
    def std(self, x, axis=None): raise NotImplementedError
    def amax(self, x, axis=None): raise NotImplementedError
    def amin(self, x, axis=None): raise NotImplementedError
    def aminmax(self, x): return self.amin(x), self.amax(x)
    def all(self, x, axis=None): raise NotImplementedError
    def any(self, x, axis=None): raise NotImplementedError
    def isfinite(self, x): raise NotImplementedError
    def where(self, cond, a, b): raise NotImplementedError
    def reshape(self, x, shape): raise NotImplementedError
    def stack(self, xs): raise NotImplementedError
    def concat(self, xs): raise NotImplementedError
    def scalar(self, value, like): raise NotImplementedError

    def mean_std(self, x):
        """``(mean(x), std(x))`` over all of ``x``: one call, so that a framework can share
        the work between the two."""
        return self.mean(x), self.std(x)
