"""The learning-rate schedulers that drive the watched optimizer, read as plain data.

Why: a scheduler misused looks, in the records, like a learning rate that falls. The
records show *that* it fell, never *why*: a ``ReduceLROnPlateau`` in mode ``"min"`` stepped
with an accuracy cuts the rate on every rise of the accuracy, and its curve of rates is the
one a step decay draws. What tells them apart lives in the scheduler object: its class, its
mode, the best value it saw and its count of bad epochs. ``watch`` is never given the
scheduler, so it is found here, and read without calling or changing anything of it.

How it is found (each scheduler, torch's or minigrad's, holds ``.optimizer``):
1. the frames of the call stack: their local variables, and one level into the attributes
   of each local object (a trainer's ``self.scheduler``). ``Around`` asks when the monitor
   closes, which ``with watch(...)`` does inside the user's loop, where the scheduler is a
   local; measured 0.1-0.4 ms (a stack of 15 frames, a script's globals).
2. only when the frames hold none: ``gc.get_referrers(optimizer)``, which walks every object
   the garbage collector tracks. Measured on 2 cores: 25 ms with 0.5 million tracked objects
   (a 200-layer model, 100k dicts), 50 ms with 2.3 million (220-240 ms at a load of 6).
   To bound it, it runs at most once per optimizer; what it finds is remembered through weak
   references (nothing is kept alive), so later calls read those again (0.3 ms).

A scheduler built after that one search and never seen in a frame is missed: a rule then
sees no scheduler, which is what it saw before this observer existed.

``remember_schedulers(observed, optimizer)`` keeps the last states seen: a scheduler that
was a local of the training function is gone when findings are read after it returned, and
its state at the monitor's close is the one the rules read then.
"""
import gc
import sys
import weakref

from ..observed import SchedulerState
from .lambda_schedules import lambda_plan

MAX_FRAMES = 64              # [design] frames walked up from here: the user's loop is near
MAX_ATTRIBUTES = 200         # [design] attributes of one local object looked into (a trainer
                             # holds a few dozen; a module's globals may hold thousands)
# the attribute holding each schedule's planned length in step() calls (SchedulerState.length)
LENGTH_ATTRIBUTES = {"CosineAnnealingLR": "T_max", "OneCycleLR": "total_steps",
                     "LinearLR": "total_iters", "ConstantLR": "total_iters",
                     "PolynomialLR": "total_iters"}
PLATEAU_FIELDS = ("mode", "threshold", "threshold_mode", "patience", "cooldown",
                  "cooldown_counter", "factor", "best", "num_bad_epochs", "eps")

_searched = weakref.WeakKeyDictionary()  # optimizer -> [weak references to its schedulers]
                                         # found by the one gc search


def observe_schedulers(optimizer, search=True):
    """``[SchedulerState]`` of each scheduler whose ``.optimizer`` is ``optimizer`` (none
    found, or no optimizer: ``[]``). Reads attributes only; never raises on an odd object.
    ``search=False``: no gc search, if the frames hold none (one made earlier is still read)."""
    if optimizer is None:
        return []
    found = {}
    try:                            # never break the user's close() or findings
        found = {id(s): s for s in _from_frames(optimizer)}
        for scheduler in _from_search(optimizer, search=search and not found):
            found.setdefault(id(scheduler), scheduler)
    except Exception:
        pass
    states = []
    for scheduler in found.values():
        try:
            states.append(scheduler_state(scheduler, optimizer))
        except Exception:           # an object that only looks like a scheduler
            continue
    return states


def remember_schedulers(observed, optimizer):
    """Put the schedulers seen now into ``observed.schedulers``; when none is seen now, the
    states seen before stay (the scheduler was freed after the loop: module doc).

    The gc search runs only while no scheduler was seen yet: ``findings()`` read after the
    training function returned (the scheduler no longer a local) would otherwise walk the
    whole heap to find again what ``close()`` saw in the loop's frame (60 ms on the zoo's
    residual MLP, 6% of its 120-step run)."""
    states = observe_schedulers(optimizer, search=not observed.schedulers)
    if states:
        observed.schedulers[:] = states


def is_scheduler_of(value, optimizer):
    """A learning-rate scheduler of ``optimizer``: its class has a ``step`` method and it holds
    ``optimizer`` and a ``last_epoch`` as attributes (torch's and minigrad's schedulers alike).
    Read from the class and the instance's ``__dict__`` only, so that no ``__getattr__`` of
    an unrelated object (a proxy, a mock, a lazy module) runs."""
    try:
        if not callable(getattr(type(value), "step", None)):
            return False
        attributes = getattr(value, "__dict__", None)
        return isinstance(attributes, dict) and attributes.get("optimizer") is optimizer and \
            "last_epoch" in attributes
    except Exception:               # a class whose attributes raise
        return False


def scheduler_state(scheduler, optimizer):
    """The plain-data state of one scheduler (``SchedulerState``)."""
    groups = getattr(optimizer, "param_groups", None) or []
    plateau = {name: getattr(scheduler, name, None) for name in PLATEAU_FIELDS}
    step_count = getattr(scheduler, "_step_count", None)
    # a plateau scheduler counts its calls in last_epoch; the others step once when built
    calls = int(step_count) - 1 if isinstance(step_count, int) else \
        int(getattr(scheduler, "last_epoch", 0) or 0)
    planned, periodic = lambda_plan(scheduler)     # a LambdaLR's plan (real-bug batch 78)
    return SchedulerState(
        type=type(scheduler).__name__, calls=calls, periodic=periodic,
        lrs=tuple(float(g["lr"]) for g in groups if "lr" in g),
        base_lrs=_floats(getattr(scheduler, "base_lrs", None)),
        length=planned or _whole(getattr(scheduler,
                                         LENGTH_ATTRIBUTES.get(type(scheduler).__name__, ""),
                                         None)),
        min_lrs=_floats(getattr(scheduler, "min_lrs", None)),
        mode=plateau["mode"] if isinstance(plateau["mode"], str) else None,
        threshold_mode=plateau["threshold_mode"]
        if isinstance(plateau["threshold_mode"], str) else None,
        **{name: _number(plateau[name]) for name in PLATEAU_FIELDS
           if name not in ("mode", "threshold_mode")})


def _floats(values):
    try:
        return tuple(float(v) for v in values) if values is not None else None
    except (TypeError, ValueError):
        return None


def _whole(value):
    """A positive whole number of steps, or None."""
    number = _number(value)
    return int(number) if number is not None and number >= 1 and number == int(number) \
        else None


def _number(value):
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _from_frames(optimizer):
    """Schedulers among the locals of the calling frames, and among the attributes of
    those locals (``self.scheduler``)."""
    found, frame = [], sys._getframe(1)
    for _ in range(MAX_FRAMES):
        if frame is None:
            break
        for value in list(frame.f_locals.values()):
            if is_scheduler_of(value, optimizer):
                found.append(value)
            else:
                found.extend(_among_attributes(value, optimizer))
        frame = frame.f_back
    return found


def _among_attributes(value, optimizer):
    attributes = getattr(value, "__dict__", None) if not isinstance(value, type) else None
    if not isinstance(attributes, dict) or len(attributes) > MAX_ATTRIBUTES:
        return []
    return [v for v in list(attributes.values()) if is_scheduler_of(v, optimizer)]


def _from_search(optimizer, search):
    """Schedulers the one gc search found (still alive); the search itself runs only when
    ``search`` and never before for this optimizer (its cost: module doc)."""
    try:
        known = _searched.get(optimizer)
    except TypeError:               # an optimizer that takes no weak reference
        return []
    if known is None and search:
        referrers = gc.get_referrers(optimizer)
        # an object whose __dict__ was made real (vars(), state_dict()) is found through that
        # dict: one more search for the owners of such dicts, all at once
        dicts = [r for r in referrers if type(r) is dict and r.get("optimizer") is optimizer
                 and "last_epoch" in r]
        owners = gc.get_referrers(*dicts) if dicts else []
        known = [ref for ref in (_weak(s) for s in _unique(referrers + owners)
                                 if is_scheduler_of(s, optimizer)) if ref is not None]
        _searched[optimizer] = known
    return [s for s in (ref() for ref in known or []) if s is not None]


def _weak(scheduler):
    """A weak reference to it, or None for an object that takes none (holding it would keep
    its optimizer, the dictionary's key, alive for good)."""
    try:
        return weakref.ref(scheduler)
    except TypeError:
        return None


def _unique(objects):
    return list({id(o): o for o in objects}.values())
