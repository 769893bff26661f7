"""Plain per-step records: what the monitor saw, in NumPy and Python numbers only.

Data flows one way: the framework (through an adapter) -> these records -> the rules
(``nndebug.rules``) -> findings -> reports. Nothing here knows a framework, so the
rules, the reports and the tests can be run on records built by hand.

A ``RunRecord`` holds
- the loss of *every* step (cheap: one number) and the validation loss when given,
- a ``StepRecord`` for each *recorded* step (the detailed statistics are sampled, see
  ``nndebug.monitor``), with per-parameter arrays aligned with ``RunRecord.params``,
- the static facts: parameter and layer names/types, which parameters the optimizer holds.
"""
import copy
import math
from dataclasses import dataclass, field

import numpy as np

from .observed import Observed
from .plain import plain

# layer types the rules reason about, by class name (torch and minigrad share the names)
RELU_TYPES = {"ReLU", "ReLU6"}
TANH_TYPES = {"Tanh", "Hardtanh"}
SIGMOID_TYPES = {"Sigmoid", "Hardsigmoid"}
SOFTMAX_TYPES = {"Softmax", "Softmax2d"}
DROPOUT_TYPES = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"}
BATCHNORM_TYPES = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
                   "LazyBatchNorm2d", "LazyBatchNorm3d"}
# layers whose output carries no new information (same values as their input, or random masks)
PASS_THROUGH_TYPES = DROPOUT_TYPES | {"Identity", "Flatten", "Unflatten"}


def layer_kind(type_name):
    """A coarse kind the rules use: relu / tanh / sigmoid / softmax / other."""
    if type_name in RELU_TYPES:
        return "relu"
    if type_name in TANH_TYPES:
        return "tanh"
    if type_name in SIGMOID_TYPES:
        return "sigmoid"
    if type_name in SOFTMAX_TYPES:
        return "softmax"
    return "other"


FINGERPRINT_DENSE_STEPS = 32
"""[design] The first 32 steps have their batch fingerprinted, then every 32nd step.

Which batches repeat is a question about pairs of steps an epoch apart. Those steps form a
sparse ruler: every distance d (an epoch of d batches, or several epochs) has a pair in it,
a step s < 32 and the multiple of 32 in [d, d + 31] (there is exactly one), so an epoch of
any length is seen again from its first 32 batches, while a run pays for one fingerprint
in 32 steps after the first 32 (measured: the fingerprint hook, ~15 us a step, was about
4% of a 150-step run of a small MLP when it ran at every step)."""


def is_fingerprinted_step(step):
    """Whether the monitor fingerprints the batch of optimizer step ``step`` (a function of
    the step number alone: every run, every rank, the same steps). ``step`` may be a NumPy
    array of steps: the answer is then one bool per step."""
    return (step < FINGERPRINT_DENSE_STEPS) | (step % FINGERPRINT_DENSE_STEPS == 0)


@dataclass
class ParamInfo:
    name: str                 # qualified name, as named_parameters() spells it
    shape: tuple
    trainable: bool
    in_optimizer: "bool | None"  # None when no optimizer was given to watch()
    times_in_optimizer: "int | None" = None   # how often its param groups list it (more
                                              # than once: updated that often per step)

    def to_dict(self):
        """As JSON values (the run's ``to_dict`` and the saved run's header)."""
        return {"name": self.name, "shape": [int(d) for d in self.shape],
                "trainable": self.trainable, "in_optimizer": self.in_optimizer,
                "times_in_optimizer": self.times_in_optimizer}


@dataclass
class LayerInfo:
    name: str                 # qualified module name ("2", "encoder.fc1")
    type: str                 # class name ("ReLU", "Linear")
    kind: str                 # layer_kind(type)


@dataclass
class StepRecord:
    """Everything measured at one recorded step (arrays aligned with RunRecord.params)."""

    step: int
    # gradients delivered by backward since the previous optimizer step (tensor hooks)
    grad_norm: np.ndarray = None        # (P,) NaN where no gradient arrived
    grad_received: np.ndarray = None    # (P,) bool
    # what .grad held when step() was called, compared with what backward delivered
    held_norm: np.ndarray = None        # (P,) NaN where .grad was None
    held_excess: np.ndarray = None      # (P,) |.grad - delivered|, NaN where not comparable
    param_norm: np.ndarray = None       # (P,)
    update_norm: np.ndarray = None      # (P,) |w_t - w_{t-1}|, NaN when not measured
    activations: dict = field(default_factory=dict)  # layer name -> {stat: float}
    dead_units: dict = field(default_factory=dict)   # ReLU layer -> (units,) bool: zero for
                                                     # every sample of the batch
    inputs: dict = field(default_factory=dict)       # {mean, std, rms, absmax, nonfinite, ...}
    output: "np.ndarray | None" = None  # (rows, C) sample of the model's output, or None
    eval_layers: list = field(default_factory=list)  # dropout/batch-norm layers in eval mode
    backward: bool = False              # whether any gradient was delivered this step
    lrs: list = field(default_factory=list)
    judged: bool = True                 # read by the rules; False: an extra record the time
                                        # budget allowed (plots and sinks only)

    def to_dict(self):
        def arr(a):
            return None if a is None else np.asarray(a, dtype=float).tolist()
        return {"step": self.step, "grad_norm": arr(self.grad_norm),
                "grad_received": None if self.grad_received is None else
                [bool(b) for b in self.grad_received],
                "held_norm": arr(self.held_norm), "held_excess": arr(self.held_excess),
                "param_norm": arr(self.param_norm), "update_norm": arr(self.update_norm),
                "activations": {k: dict(v) for k, v in self.activations.items()},
                "dead_units": {k: int(np.sum(v)) for k, v in self.dead_units.items()},
                "inputs": dict(self.inputs), "output_shape": None if self.output is None
                else list(self.output.shape), "eval_layers": list(self.eval_layers),
                "backward": self.backward, "lrs": list(self.lrs), "judged": self.judged}


def record_finite(r, grads_ok=None):
    """Whether a recorded step saw only finite numbers (gradients, inputs, activations).

    The monitor records the steps after one that did not (to find where a NaN comes
    from); the rules look only before it. ``grads_ok``: ``grads_finite(r)`` when the caller
    already has it (the rules' Context computes it once per record).
    """
    return (grads_finite(r) if grads_ok is None else grads_ok) and inputs_finite(r) and \
        all(math.isfinite(stats.get("mean", 0.0)) for stats in r.activations.values())


def grads_finite(r):
    """Whether every gradient that arrived at this step has a finite norm (True when the
    norms were not measured: a record without them says nothing about them)."""
    if not r.backward or r.grad_received is None or r.grad_norm is None or \
            len(r.grad_norm) != len(r.grad_received):
        return True
    # plain Python over the few tensors: cheaper than masking and reducing NumPy arrays
    norms = np.asarray(r.grad_norm, float).tolist()
    arrived = np.asarray(r.grad_received, bool).tolist()
    return all(math.isfinite(norm) for norm, got in zip(norms, arrived) if got)


def inputs_finite(r):
    """Whether the input batch's mean and std were finite (True when not measured)."""
    return not r.inputs or (math.isfinite(r.inputs.get("mean", 0.0)) and
                            math.isfinite(r.inputs.get("std", 0.0)))


@dataclass
class RunRecord:
    """A whole watched run: the loss of every step plus the recorded steps."""

    framework: str = ""
    params: list = field(default_factory=list)     # [ParamInfo] (trainable ones)
    layers: list = field(default_factory=list)     # [LayerInfo] whose outputs are measured
    has_optimizer: bool = False
    loss_steps: list = field(default_factory=list)
    losses: list = field(default_factory=list)
    val_steps: list = field(default_factory=list)
    val_losses: list = field(default_factory=list)
    records: list = field(default_factory=list)    # [StepRecord]
    histograms: list = field(default_factory=list)  # [(step, {layer: (edges, counts)})]
    n_steps: int = 0
    settings: dict = field(default_factory=dict)
    # what the monitor saw around the model (loss calls, unregistered parts, frozen tensors,
    # batch-norm batch sizes, raised warnings): ``nndebug.observed``
    observed: Observed = field(default_factory=Observed)
    # the early batches' fingerprints, one per optimizer step (DATA_ORDER_REPEATS; NaN on a
    # step not fingerprinted: ``is_fingerprinted_step``), and what the ranks of a
    # distributed run told each other (``nndebug.rank_records.RankRecord``)
    fingerprints: list = field(default_factory=list)
    ranks: object = None

    # --- convenient views for the rules ---------------------------------------------
    def judged_view(self):
        """This run as the rules see it: the judged records only (``StepRecord.judged``).

        Which steps are judged depends on the step number alone; extra records, taken
        when the monitor's time budget allowed, depend on the clock, so they feed plots
        and sinks but never a verdict (``nndebug.monitor.schedule``). A shallow copy:
        everything else is shared with this run.
        """
        view = copy.copy(self)
        view.records = [r for r in self.records if r.judged]
        return view

    def add_losses(self, curve, steps, values):
        """Append to the "train" or "val" curve: ``steps`` and their ``values``, in order."""
        if curve == "train":
            self.loss_steps.extend(steps)
            self.losses.extend(values)
        else:
            self.val_steps.extend(steps)
            self.val_losses.extend(values)

    def loss_array(self):
        return np.asarray(self.loss_steps, dtype=int), np.asarray(self.losses, dtype=float)

    def val_array(self):
        return np.asarray(self.val_steps, dtype=int), np.asarray(self.val_losses, dtype=float)

    def steps(self):
        return np.array([r.step for r in self.records], dtype=int)

    def matrix(self, attribute, records=None):
        """(records, params) array of a per-parameter statistic; NaN where missing.

        ``records``: a subset of ``self.records`` (default: all). A record whose array
        does not match ``params`` (missing, or measured before the parameters changed)
        becomes a row of NaN.
        """
        rows = []
        width = len(self.params)
        for r in self.records if records is None else records:
            value = getattr(r, attribute)
            rows.append(np.full(width, np.nan) if value is None or len(value) != width
                        else np.asarray(value, dtype=float))
        return np.vstack(rows) if rows else np.zeros((0, width))

    def layer_series(self, layer, stat):
        """(steps, values) of one activation statistic of one layer over the recorded steps."""
        steps, values = [], []
        for r in self.records:
            stats = r.activations.get(layer)
            if stats is not None and stat in stats:
                steps.append(r.step)
                values.append(stats[stat])
        return np.asarray(steps, dtype=int), np.asarray(values, dtype=float)

    def param_index(self, name):
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        raise KeyError(name)

    def to_dict(self, records=True):
        """JSON-ready dict; ``records=False`` leaves out the per-step statistics."""
        return {
            "framework": self.framework,
            "n_steps": self.n_steps,
            "settings": dict(self.settings),
            "params": [p.to_dict() for p in self.params],
            "layers": [{"name": l.name, "type": l.type, "kind": l.kind} for l in self.layers],
            "losses": {"steps": list(map(int, self.loss_steps)),
                       "values": [plain(float(v)) for v in self.losses]},
            "val_losses": {"steps": list(map(int, self.val_steps)),
                           "values": [plain(float(v)) for v in self.val_losses]},
            "recorded_steps": [int(r.step) for r in self.records],
            **({"records": [r.to_dict() for r in self.records]} if records else {}),
        }
