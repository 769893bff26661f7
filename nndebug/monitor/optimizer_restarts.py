"""Optimizers built anew while training goes on (OPTIMIZER_STATE_RESET,
``nndebug.rules.optimizer_restarts``).

An optimizer built inside the epoch loop (or inside a helper the loop calls, or inside the
batch loop) starts every time from empty state: Adam's moment estimates at zero and its step
count at one, SGD's momentum buffer gone. The model still trains, but each restart throws
away what the optimizer had gathered, and Adam's first bias-corrected steps move every
weight by about the full learning rate again.

One global step hook of torch's optimizers (``register_optimizer_step_post_hook``: it sees
every optimizer, also those built after ``watch`` started, and the one given to ``watch``
needs not be the one that steps) notes each optimizer object, different from the last one,
that steps the watched parameters and keeps state (a plain SGD without momentum keeps none:
rebuilding it changes nothing). On every optimizer step it costs one identity comparison;
the new object's parameters are looked at once. Kept in ``run.observed.optimizer_starts``
as ``(step, class name, first group's learning rate)`` (a declared field of ``nndebug.observed.Observed``: saved and loaded
with the run).
"""
import weakref

MAX_STARTS_KEPT = 64     # [design] optimizer starts noted (a rebuild per batch stops here)


class OptimizerRestarts:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._watched = {id(p) for p in parameters}
        self._last = None            # the optimizer object that stepped last
        self._known = weakref.WeakSet()      # optimizers seen stepping watched parameters
        self._foreign = weakref.WeakSet()    # and those seen stepping other parameters only
        self._handle = None
        self._continuing = False     # a resumed run: the next new optimizer continues one
        self.stepped_ids = set()     # ids of the tensors held by every optimizer seen
                                     # stepping (read by foreign_networks.py)
        if adapter.framework != "torch" or not self._watched:
            return
        try:
            from torch.optim.optimizer import register_optimizer_step_post_hook
            self._handle = register_optimizer_step_post_hook(self._after_step)
        except Exception as error:        # a torch without global optimizer hooks
            on_error(error)

    def _after_step(self, optimizer, args, kwargs):
        if optimizer is self._last:
            return
        try:
            if optimizer in self._known:          # two optimizers stepped in turn
                self._last = optimizer
            elif optimizer not in self._foreign:  # an optimizer not seen before
                self.stepped_ids.update(id(p) for group in optimizer.param_groups
                                        for p in group["params"])
                self._first_step(optimizer)
        except Exception as error:        # never break the user's step
            self._on_error(error)

    def continuing(self):
        """The run resumes from a checkpoint (``load_state_dict``): the first optimizer to
        step next is the one rebuilt from it, the same optimizer continued, not a restart."""
        self._continuing = True

    def _first_step(self, optimizer):
        if not watched_held(optimizer, self._watched):
            self._foreign.add(optimizer)
            return
        self._known.add(optimizer)
        self._last = optimizer
        if self._continuing:
            self._continuing = False
            return
        starts = self.observed.optimizer_starts
        if len(starts) < MAX_STARTS_KEPT and self._keeps_state(optimizer):
            starts.append((self._current_step(), type(optimizer).__name__,
                           first_rate(optimizer)))


    @staticmethod
    def _keeps_state(optimizer):
        """Whether the optimizer keeps per-parameter state (moments, momentum buffers)."""
        return any(bool(state) for state in optimizer.state.values())

    def close(self):
        self._last = None
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def first_rate(optimizer):
    """The learning rate of the optimizer's first parameter group (NaN when it has none):
    a loop that rebuilds its optimizer to change the rate (hyperIQA halves it each epoch)
    writes a schedule that way, which the rule tells from a rebuild at one rate."""
    try:
        return float(optimizer.param_groups[0]["lr"])
    except (KeyError, IndexError, TypeError, ValueError):
        return float("nan")


def watched_held(optimizer, watched):
    """The ids of the watched tensors (``watched``: a set of ids) that ``optimizer`` holds
    (also read by ``shared_optimizers.py``)."""
    return frozenset(id(p) for group in optimizer.param_groups for p in group["params"]
                     if id(p) in watched)
