"""Networks the training step runs that are not the watched model: a distillation teacher,
an EMA (mean-teacher) copy. Their mode and their batch-norm statistics decide what they hand
the student, and nothing else looks at them (``run.observed.foreign_norm_statistics``,
``run.observed.foreign_train_dropouts``; NORM_STATISTICS_NEVER_ESTIMATED and
TEACHER_IN_TRAIN_MODE, ``nndebug.rules.foreign_networks``).

Two mistakes are read:

- a batch norm in eval mode whose running statistics were never estimated (mean 0, variance
  1, no batch tracked): an EMA copy averaged over ``parameters()`` only, whose buffers stay
  those of the untrained network it was copied from (YU1ut/MixMatch-pytorch#16,
  saltoricristiano/cosmix-uda#21);
- a dropout left in training mode in a network whose weights never change: a loaded
  teacher never put in eval mode (yxuansu/TaCL#11). An EMA teacher whose
  weights follow the student's is run with its noise on purpose (mean teacher) and is told
  apart by those weights: a few values of each of its parameter tensors are copied when
  first seen and compared when findings are asked for.

(real-bug batches 155 and 161) A third: parameters outside the model that the loss trains
through but no optimizer holds - a feature-distillation converter built beside the student,
learned task weights kept in the loss module (FairMOT's s_det and s_id), an auxiliary
loss's decoder held in a plain list. Each gets a gradient every step and never moves. Of the
copied tensors of modules run in training mode (a teacher or a perceptual-loss network is
put in eval mode), those requiring a gradient that hold one at close are kept in
``run.observed.outside_parameters`` with whether an optimizer seen stepping
(``optimizer_restarts.py``'s global hook notes every one) holds them and whether they
changed; OPTIMIZER_MISSING_PARAMS reads them.

What is read: the module calls of a recorded step that the global module hooks already see
(``around.py``), outside the model's forward and outside the model; each module is kept by
weak reference, once. The statistics and the copied values are read on the host when the
monitor closes (inside the user's function, while a teacher that is a local still lives) or
when findings are asked for before that. Cost: a type test per such call on the steps the global hooks are
on, one small copy per parameter tensor of the other network (at most ``SNAPSHOTS``).
"""
import weakref

from ..records import BATCHNORM_TYPES, DROPOUT_TYPES

SNAPSHOT_VALUES = 256        # [design] values of a parameter tensor copied: a weight that
                             # moves (an EMA of a training student) moves in all of them
SNAPSHOTS = 64               # [design] parameter tensors of other networks copied at most
MODULES_KEPT = 256           # [design] batch norms and dropouts of other networks kept at most


class ForeignNetworks:
    def __init__(self, adapter, observed, on_error, stepped_ids=frozenset()):
        self.observed, self.on_error = observed, on_error
        self.enabled = adapter.framework == "torch"
        self._norms, self._dropouts, self._snapshots = {}, {}, {}
        self._stepped = stepped_ids       # ids held by the optimizers seen stepping

    def offer(self, module):
        """A module outside the watched model is about to run on a recorded step, outside
        the model's forward."""
        if not self.enabled:
            return
        try:
            kind = type(module).__name__
            if kind in BATCHNORM_TYPES:
                if not module.training and getattr(module, "running_mean", None) is not None \
                        and len(self._norms) < MODULES_KEPT:
                    self._norms.setdefault(id(module), weakref.ref(module))
            elif kind in DROPOUT_TYPES:
                if module.training and float(getattr(module, "p", 0.0)) > 0 and \
                        len(self._dropouts) < MODULES_KEPT:
                    self._dropouts.setdefault(id(module), weakref.ref(module))
            else:
                self._snapshot(module)
        except Exception as error:            # never break the user's step
            self.enabled = False
            self.on_error(error)

    def _snapshot(self, module):
        for parameter in module.parameters(recurse=False):
            if len(self._snapshots) >= SNAPSHOTS:
                return
            if id(parameter) not in self._snapshots and parameter.numel():
                values = parameter.detach().reshape(-1)[:SNAPSHOT_VALUES].clone()
                self._snapshots[id(parameter)] = (weakref.ref(parameter), values,
                                                  type(module).__name__, module.training)

    def read(self):
        """Into ``run.observed`` (at close, or when findings are asked for first); once."""
        if not self.enabled:
            return
        try:
            for ref in self._norms.values():
                norm = ref()
                if norm is not None:
                    self.observed.foreign_norm_statistics.append(_norm_row(norm))
            self._read_outside_parameters()
            if self._dropouts:
                changed = read = 0
                for ref, values, _, _ in self._snapshots.values():
                    parameter = ref()
                    if parameter is None:
                        continue
                    read += 1
                    changed += int(_changed(parameter, values))
                for ref in self._dropouts.values():
                    dropout = ref()
                    if dropout is not None:
                        self.observed.foreign_train_dropouts.append(
                            (type(dropout).__name__, float(dropout.p), read, changed))
        except Exception as error:
            self.on_error(error)
        self._norms, self._dropouts, self._snapshots = {}, {}, {}

    def _read_outside_parameters(self):
        """The copied tensors of modules run in training mode that hold a gradient now, into
        ``run.observed.outside_parameters`` (with whether an optimizer seen stepping holds
        them and whether they changed)."""
        for ref, values, kind, training in self._snapshots.values():
            parameter = ref()
            if parameter is None or not training or not parameter.requires_grad or \
                    parameter.grad is None:
                continue          # a teacher or a loss network in eval mode is frozen by
                                  # intent (its gradient, without no_grad, goes unused)
            self.observed.outside_parameters.append(
                (kind, [int(n) for n in parameter.shape], id(parameter) in self._stepped,
                 _changed(parameter, values)))


def _changed(parameter, values):
    """Whether the first values of ``parameter`` differ from the copy taken when first seen."""
    now = parameter.detach().reshape(-1)[:SNAPSHOT_VALUES]
    return not bool((now == values).all())


def _norm_row(norm):
    """(type, features, batches tracked, whether mean and variance are still 0 and 1)."""
    tracked = getattr(norm, "num_batches_tracked", None)
    tracked = int(tracked) if tracked is not None else -1
    at_init = bool((norm.running_mean == 0).all()) and bool((norm.running_var == 1).all())
    return type(norm).__name__, int(norm.running_mean.numel()), tracked, at_init
