"""How the model is put together, as far as the registered view does not show it.

- Frozen parameters (``requires_grad=False``): measured once when watching starts (mean,
  std, largest value, kurtosis, the spread of its rows' norms, fan-in/out: enough to tell a
  fresh initialisation from trained weights) and once more before findings are read, to see whether they changed;
  and whether trainable parameters are registered after them (a frozen stem or backbone
  that trained layers build on, rather than a fixed last layer).
- Parts the model does not register, on recorded steps:
  * modules that run inside the model's forward but are not in ``model.modules()`` (the
    global module hooks of torch and minigrad), with the registered module that called them;
  * tensors that take part in the model's output with ``requires_grad`` but are not in
    ``model.parameters()`` (nor in the optimizer): the leaves of the output's graph, on the
    first ``GRAPH_WALKS`` recorded steps (both frameworks).
  A part seen as a different object on different steps is built anew inside ``forward``.
- Batch-norm layers: their momentum, once when watching starts (a static setting); in
  training mode, how many samples (and values per channel) each training forward
  normalised over.
Everything lands in ``run.observed`` (``nndebug.observed``) as plain data.
"""
import math

from ..adapters.observing import graph_leaves
from ..observed import FrozenTensor, NormBatch, NormSetting, UnregisteredUse
from .padding_ids import PaddingIds
from ..records import BATCHNORM_TYPES

GRAPH_WALKS = 3              # recorded steps whose output graph is searched for leaves
FROZEN_SAMPLE = 1 << 20      # values of a large frozen tensor its statistics are taken on
                             # (an even stride through it): memory and time stay small
UNIT_ROWS = 1024             # [design] rows (output units) of a weight whose squared norms are
                             # compared, evenly spaced; fewer when rows are long (at most
                             # FROZEN_SAMPLE values in all)
NORM_STEPS_KEPT = 64         # recorded steps whose batch-norm batch sizes are kept (bounded
                             # memory on long runs; the verdict needs a majority, not all)


def unit_rows(shape):
    """How many rows (output units) ``unit_spread`` compares for a tensor of this shape:
    0 for a vector or a single row."""
    if len(shape) < 2 or shape[0] < 2:
        return 0
    per_row = max(1, math.prod(shape[1:]))
    return min(shape[0], UNIT_ROWS, max(2, FROZEN_SAMPLE // per_row))


def unit_spread(xp, x):
    """(std / mean of the squared norms of ``unit_rows`` evenly spaced rows of ``x``, as a
    device scalar; the rows taken). Fresh independent draws give every output unit nearly
    the same squared norm: sqrt((kurtosis - 1) / values per row) relative spread. Training
    makes some units larger than others, which a draw's moments alone (std, kurtosis) can
    miss: trained weights can share them with a fresh initialiser (NaN for a vector)."""
    shape = tuple(x.shape)
    rows = unit_rows(shape)
    if rows == 0:
        return xp.mean(x) * float("nan"), 0
    table = xp.reshape(x, (shape[0], -1))[::-(-shape[0] // rows)][:rows]
    squares = xp.sum(table * table, axis=1)
    mean = xp.mean(squares)
    return xp.std(squares) / xp.where(mean > 0, mean, mean + 1), rows


def input_columns(shape):
    """How many columns (input positions of a row: ``shape[1:]`` flattened) ``input_spread``
    compares: 0 for a vector or a single column."""
    if len(shape) < 2 or shape[0] < 1:
        return 0
    columns = math.prod(shape[1:])
    if columns < 2:
        return 0
    return min(columns, UNIT_ROWS, max(2, FROZEN_SAMPLE // shape[0]))


def input_spread(xp, x):
    """(std / mean of the squared norms of ``input_columns`` evenly spaced columns of ``x``,
    as a device scalar; the columns taken). What ``unit_spread`` is for the output units,
    for the inputs: a fresh draw gives every input position nearly the same squared norm,
    sqrt((kurtosis - 1) / rows); training moves the weights of the inputs that carry signal
    and leaves the others (a digit's always-blank border pixels) where they were. A first
    layer trained for 300 steps kept a fresh draw's std, kurtosis and row spread (0.13
    where a draw has 0.18) but its columns spread 0.33 (real-bug batch 195, a Tent twin's
    pretrained layer frozen for adaptation)."""
    shape = tuple(x.shape)
    columns = input_columns(shape)
    if columns == 0:
        return xp.mean(x) * float("nan"), 0
    table = xp.reshape(x, (shape[0], -1))
    table = table[:, ::-(-table.shape[1] // columns)][:, :columns]
    squares = xp.sum(table * table, axis=0)
    mean = xp.mean(squares)
    return xp.std(squares) / xp.where(mean > 0, mean, mean + 1), columns


class StructureWatch:
    def __init__(self, adapter, observed, optimizer_held, on_error):
        self.adapter, self.xp, self.observed = adapter, adapter.xp, observed
        self.on_error = on_error
        self.root = adapter.model
        self.module_names = {}
        for name, module in adapter.named_modules():
            self.module_names.setdefault(id(module), name)
        self.param_ids = {id(p) for _, p in adapter.named_parameters()}
        self.held = optimizer_held or set()
        self.norm_layers = [(name, m) for name, m in adapter.named_modules()
                            if adapter.module_type(m) in BATCHNORM_TYPES]
        self.padding = PaddingIds(adapter, observed, on_error)   # embeddings' padding_idx
        observed.norm_settings[:] = [norm_setting(name, adapter.module_type(m), m)
                                     for name, m in self.norm_layers]
        self._frozen = [(n, p) for n, p in adapter.named_parameters()
                        if not adapter.requires_grad(p)]
        self._frozen_fingerprint = None
        self._refreshed_at = None
        self._handles = []
        self._stack, self._inside = [], 0
        self._walks = 0
        self._module_outputs = []    # registered modules' outputs in this walked forward
        self._parts = {}             # key -> (UnregisteredUse, {step: [objects]}): the objects
                                     # of the first and the latest step are kept (alive, so
                                     # that a new object cannot reuse an old one's id)
        self._step = None
        self._measure_frozen()

    # --- frozen parameters ------------------------------------------------------------------
    def _frozen_statistics(self):
        """[(mean, std, absmax, kurtosis, unit spread, input spread)] of the frozen tensors,
        in one host transfer."""
        xp = self.xp
        parts = []
        for _, p in self._frozen:
            x = xp.asfloat(self.adapter.detach(p))
            spread, _ = unit_spread(xp, x)
            inputs, _ = input_spread(xp, x)
            size = math.prod(x.shape)
            if size > FROZEN_SAMPLE:
                x = xp.reshape(x, (-1,))[::-(-size // FROZEN_SAMPLE)]
            mean, std = xp.mean(x), xp.std(x)
            centred = (x - mean) / xp.where(std > 0, std, std + 1)
            parts += [mean, std, xp.amax(xp.abs(x)), xp.mean(centred * centred * centred * centred),
                      spread, inputs]
        if not parts:
            return []
        host = self.adapter.to_host(xp.stack(parts)).reshape(-1, 6)
        return [tuple(float(v) for v in row) for row in host]

    def _measure_frozen(self):
        if not self._frozen:
            return
        stats = self._frozen_statistics()
        self._frozen_fingerprint = stats
        shapes = {n: tuple(p.shape) for n, p in self._frozen}
        all_shapes = {n: tuple(p.shape) for n, p in self.adapter.named_parameters()}
        order = {name: i for i, name in enumerate(all_shapes)}
        trainable_at = [i for i, (_, p) in enumerate(self.adapter.named_parameters())
                        if self.adapter.requires_grad(p)]
        last_trainable = trainable_at[-1] if trainable_at else -1
        for (name, p), (mean, std, absmax, kurtosis, spread, inputs) in zip(self._frozen, stats):
            fan_in, fan_out = _fans(name, shapes[name], all_shapes)
            size = math.prod(shapes[name])
            measured = len(range(0, size, -(-size // FROZEN_SAMPLE))) if size > FROZEN_SAMPLE \
                else size
            self.observed.frozen.append(FrozenTensor(
                name=name, shape=shapes[name], fan_in=fan_in, fan_out=fan_out, mean=mean,
                std=std, absmax=absmax, kurtosis=kurtosis if std > 0 else float("nan"),
                unit_spread=spread if unit_rows(shapes[name]) else None,
                unit_rows=unit_rows(shapes[name]), measured=measured,
                before_trainable=order[name] < last_trainable,
                input_spread=inputs if input_columns(shapes[name]) else None,
                input_columns=input_columns(shapes[name])))

    def refresh_frozen(self, step=None, held=None):
        """Whether each frozen tensor changed since watching started (before findings;
        measured again only when training went on since the last look), whether it was
        unfrozen since, and whether the optimizer (``held``: ids of the parameters it holds
        now, None without one) holds it: a layer unfrozen after the optimizer was built over
        the trainable parameters gets gradients the optimizer never applies."""
        for tensor, (_, p) in zip(self.observed.frozen, self._frozen):
            tensor.unfrozen = bool(self.adapter.requires_grad(p))
            tensor.in_optimizer = None if held is None else id(p) in held
        if not self._frozen or (step is not None and step == self._refreshed_at):
            return
        self._refreshed_at = step
        try:
            now = self._frozen_statistics()
        except Exception as error:        # never break the user's run
            self.on_error(error)
            return
        for tensor, before, after in zip(self.observed.frozen, self._frozen_fingerprint, now):
            tensor.changed = any(a != b and not (math.isnan(a) and math.isnan(b))
                                 for a, b in zip(before[:3], after[:3]))

    # --- on and off with the step's other hooks ----------------------------------------------
    def arm(self, step):
        self._step = step
        adapter = self.adapter
        if len({b.step for b in self.observed.norm_batches}) < NORM_STEPS_KEPT:
            for name, module in self.norm_layers:
                self._handles.append(adapter.add_forward_hook(module, self._make_norm_hook(name)))
        self._handles.append(adapter.add_forward_hook(self.root, self._on_root_output))
        self._handles.extend(self.padding.hooks(step))
        self._stack, self._inside = [], 0

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._module_outputs.clear()

    # --- the hooks ---------------------------------------------------------------------------
    def _make_norm_hook(self, name):
        def on_output(module, inputs, output):
            try:
                if not self.adapter.is_training(module) or not inputs:
                    return
                x = inputs[0]
                if not self.adapter.is_tensor(x) or x.ndim < 2:
                    return
                samples = int(x.shape[0])
                values = samples * math.prod(int(n) for n in x.shape[2:])
                self.observed.norm_batches.append(NormBatch(self._step, name, samples, values,
                                                            _momentum_now(module)))
            except Exception as error:
                self.on_error(error)
        return on_output

    @property
    def inside_forward(self):
        """Whether the model's forward is running (global hooks: between its pre-hook and hook)."""
        return self._inside > 0

    def before_any(self, module, inputs):
        """Any module is about to run (torch's global hooks, through ``around.py``)."""
        try:
            if module is self.root:
                self._inside += 1
                self._module_outputs.clear()      # a new forward of the model's
            if self._inside and id(module) in self.module_names:
                self._stack.append(self.module_names[id(module)])
            elif self._inside and self.adapter.is_leaf_module(module):
                self._note_module(module)
        except Exception as error:
            self.on_error(error)

    def after_any(self, module, inputs, output):
        try:
            if self._inside and id(module) in self.module_names and self._stack:
                self._stack.pop()
            if self._inside and self._walks < GRAPH_WALKS and module is not self.root and \
                    id(module) in self.module_names:
                # (real-bug batch 82) outputs that do not require a gradient yet: a hook of
                # the module's own may still mark them (peft's enable_input_require_grads),
                # which makes them leaves of the graph that are activations, not parameters
                self._module_outputs.extend(
                    t for t in self.adapter.float_leaves(output)
                    if not getattr(t, "requires_grad", True))
            if module is self.root:
                self._inside -= 1
        except Exception as error:
            self.on_error(error)

    def _note_module(self, module):
        shapes = [tuple(p.shape) for _, p in self.adapter.own_parameters(module)]
        called_from = self._stack[-1] if self._stack else ""
        kind = self.adapter.module_type(module)
        self._note(("module", kind, called_from, tuple(shapes)), module,
                   lambda: UnregisteredUse("module", kind, shapes, called_from))

    def _on_root_output(self, module, inputs, output):
        if self._walks >= GRAPH_WALKS:
            return
        try:
            leaves = self.adapter.float_leaves(output)
            if not leaves or not getattr(leaves[0], "requires_grad", False):
                return            # an evaluation pass: nothing is trained through it
            self._walks += 1
            owned = self._unregistered_module_params()
            upstream = self._upstream_leaves(inputs)
            outputs = {id(t) for t in self._module_outputs}    # kept alive: ids unique
            for t in graph_leaves(self.adapter.framework, leaves[0]):
                if id(t) in self.param_ids or id(t) in self.held or id(t) in owned \
                        or id(t) in upstream or id(t) in outputs:
                    continue
                kind = "Parameter" if type(t).__name__ == "Parameter" else "Tensor"
                shape = tuple(t.shape)
                self._note(("tensor", kind, shape), t,
                           lambda: UnregisteredUse("tensor", kind, [shape], ""))
        except Exception as error:
            self.on_error(error)
        finally:
            self._module_outputs.clear()

    def _upstream_leaves(self, inputs):
        """Leaves the model's inputs were computed from (another network that feeds it: a
        GAN's generator under its discriminator): they are trained elsewhere, not parts the
        model forgot to register. An input that requires a gradient is itself one of them:
        the loop differentiates with respect to it (a PINN's collocation points, a gradient
        penalty's interpolates marked requires_grad_()). One more walk, only for inputs that
        require a gradient."""
        ids = set()
        for x in self.adapter.float_leaves(inputs):
            if getattr(x, "requires_grad", False):
                ids.add(id(x))
                ids.update(id(t) for t in graph_leaves(self.adapter.framework, x))
        return ids

    def _unregistered_module_params(self):
        ids = set()
        for use, by_step in self._parts.values():
            if use.kind == "module":
                for modules in by_step.values():
                    for module in modules:
                        ids.update(id(p) for _, p in self.adapter.own_parameters(module))
        return ids

    def saw_unregistered_modules(self):
        """Whether a module outside the model ran inside its forward on a recorded step."""
        return any(key[0] == "module" for key in self._parts)

    def _note(self, key, obj, make):
        """One unregistered object seen in this step's forward, under ``key`` (its kind,
        type, caller, shapes): counted per step, compared with the first step's objects."""
        use, by_step = self._parts.get(key, (None, None))
        if use is None:
            use, by_step = make(), {}
            self._parts[key] = (use, by_step)
            self.observed.unregistered.append(use)
        if self._step not in by_step:
            use.steps.append(self._step)
            first = min(by_step) if by_step else None
            for old in [s for s in by_step if s != first]:
                del by_step[old]             # keep the first step's objects and this step's
            by_step[self._step] = []
        now = by_step[self._step]
        if not any(o is obj for o in now):
            now.append(obj)
            use.count = max(use.count, len(now))
        first = by_step[min(by_step)]
        if not any(o is obj for o in first):
            use.new_each_step = True         # not among the first step's objects: built anew


def norm_setting(name, kind, module):
    """The ``NormSetting`` of a batch-norm module (torch and minigrad name the attributes
    alike). A momentum that is not a plain number (None: a cumulative average) is kept as
    None: nothing to judge."""
    momentum = getattr(module, "momentum", None)
    try:
        momentum = None if momentum is None or isinstance(momentum, bool) else float(momentum)
    except (TypeError, ValueError):
        momentum = None
    return NormSetting(layer=name, type=kind, momentum=momentum,
                       tracks_running_stats=bool(getattr(module, "track_running_stats", True)))


def _fans(name, shape, all_shapes):
    """(fan_in, fan_out) of a weight (out, in, *kernel); a bias borrows its weight's."""
    if len(shape) < 2:
        weight = all_shapes.get(name.rsplit(".", 1)[0] + ".weight") if "." in name else None
        if weight is None or len(weight) < 2:
            return 0, 0
        shape = weight
    receptive = math.prod(shape[2:]) if len(shape) > 2 else 1
    return int(shape[1] * receptive), int(shape[0] * receptive)


def _momentum_now(module):
    """The momentum a batch-norm layer updates its running statistics with in this call, or
    None (a cumulative average, no running statistics kept, or a value we cannot read). Read
    at each call because a loop may change it between calls: SAM's bypass helpers set it to
    0 for the second forward and put it back for the next step's first (real-bug batch 353)."""
    if getattr(module, "running_mean", None) is None:
        return None
    momentum = getattr(module, "momentum", None)
    return float(momentum) if isinstance(momentum, (int, float)) and \
        not isinstance(momentum, bool) else None
