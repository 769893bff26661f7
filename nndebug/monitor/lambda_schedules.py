"""The plan of a ``LambdaLR``: the step at which its factor first reaches zero, and whether
it climbs back afterwards - read by evaluating the user's own lambda on whole step numbers.

Why: a ``CosineAnnealingLR`` or a ``OneCycleLR`` holds its planned length (``T_max``,
``total_steps``: ``SchedulerState.length``), a ``LambdaLR`` only a function. Warm-up and
decay schedules are mostly LambdaLRs (transformers' ``get_linear_schedule_with_warmup``,
``get_cosine_schedule_with_warmup``, diffusers' copies, hand-written lambdas), and the two
ways they go wrong in practice are the ones ``SCHEDULE_LENGTH_MISMATCH`` names for the
classes that hold a length: sized in optimizer steps and stepped once per epoch
(huggingface/transformers#20916: zero for the whole first epoch, the warm-up never done),
or given the number of epochs as its horizon and stepped every optimizer step
(ScrollPrize/villa#1495: the cosine's progress runs past 1 and ``cos`` turns back up).

What is read, for each lambda of the scheduler (one per param group), its factor f(k) at
the whole steps k = 0 .. DENSE_STEPS - 1, then on a geometric grid up to MAX_STEP, and
the first zero refined by bisection between two grid points:
- ``length``: the first k past the factor's peak where f(k) <= ZERO_FACTOR x the peak - the
  step count at which the schedule planned to end (a decay to zero; a cosine's trough);
  None when it never gets there (a constant, a warm-up only) or only approaches it (an
  exponential decay: its last 1% takes more than END_SHARE of the steps).
- ``periodic``: past that zero the factor climbs back to CLIMB_BACK of its peak or more,
  through at least one value between ZERO_FACTOR and CLIMB_BACK of it (a smooth climb - a
  cosine turning back up); a hard restart (transformers' ``..._with_hard_restarts``) jumps
  from near zero to its peak in one step and is not periodic in this sense.

Cost: at most about 1,100 calls of the lambda per group (512 dense, about 220 on the grid,
a bisection, 256 past the zero), only for LambdaLRs, once per lambda (remembered through a
weak reference for the scheduler's later reads): see the measured cost in the batch-78
commit. A lambda that raises, returns a non-number or is not a plain
function (a callable object that may hold state) is not called: no plan (None, None).
"""
import functools
import math
import types
import weakref

DENSE_STEPS = 512            # [design] every whole step up to here; past it a geometric grid
                             # and a bisection find the first zero to the step
MAX_STEP = 10 ** 7           # [design] the geometric grid's end (a run of ten million steps)
GRID_RATIO = 1.05            # [design] geometric grid past DENSE_STEPS: 5% apart (a length
                             # within PLANNED_FOR_RUN 10% is then refined by bisection)
ZERO_FACTOR = 1e-6           # [design] a factor at or below 1e-6 of its peak is the schedule's
                             # end (transformers' decays and a cosine's trough reach 0, give or
                             # take float error)
NEAR_END_FACTOR = 0.01       # [design] ... and it fell from 1% of its peak to that end within
END_SHARE = 0.25             # [design] the last quarter of the steps before it: a planned end
                             # (linear: the last 1%, a cosine's trough: the last 6%, a
                             # quadratic decay: 10%); an exponential decay approaches zero
                             # without one (0.99 ** k: 1% at 458, 1e-6 at 1375) and is not read
CLIMB_SAMPLES = 256          # [design] factors read past the zero to see it climb back
CLIMB_BACK = 0.5             # [design] back to half its peak or more after reaching zero: it
                             # climbed back (core variants: CosineAnnealingLR's ENDED_HIGH)
LAMBDA_TYPES = ("LambdaLR",)  # [design] schedules whose factor is the user's function of the
                              # step (MultiplicativeLR's lambda is a per-step ratio, not read)


_plans = weakref.WeakKeyDictionary()     # lambda -> (length, periodic): read once per run


def plain_function(value):
    """A Python function or lambda, or a functools.partial of one (transformers builds its
    schedules so): the kinds evaluated here."""
    if isinstance(value, functools.partial):
        value = value.func
    return isinstance(value, types.FunctionType)


def lambda_plan(scheduler):
    """(length, periodic) read from a LambdaLR's lambdas (module doc): the shortest length
    any group's lambda plans, and whether that group's factor climbs back; (None, None) for
    another scheduler or a lambda not read."""
    if type(scheduler).__name__ not in LAMBDA_TYPES:
        return None, None
    lambdas = getattr(scheduler, "lr_lambdas", None)
    if not isinstance(lambdas, (list, tuple)) or not lambdas:
        return None, None
    best = (None, None)
    for fn in lambdas:
        if not plain_function(fn):
            continue
        try:
            plan = _plans[fn]
        except (KeyError, TypeError):
            plan = _plan_of(fn)
            try:
                _plans[fn] = plan
            except TypeError:           # takes no weak reference: read again next time
                pass
        if plan[0] is not None and (best[0] is None or plan[0] < best[0]):
            best = plan
    return best


def _factor(fn, step):
    value = fn(step)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("non-finite factor")
    return value


def _grid():
    steps = list(range(DENSE_STEPS))
    k = float(DENSE_STEPS)
    while k < MAX_STEP:
        steps.append(int(k))
        k *= GRID_RATIO
    return steps


def _plan_of(fn):
    """(length, periodic) of one lambda, or (None, None)."""
    try:
        steps = _grid()
        values = [_factor(fn, k) for k in steps]
        peak_at = max(range(len(values)), key=lambda i: values[i])
        peak = values[peak_at]
        if not peak > 0:
            return None, None
        near_at = next((i for i in range(peak_at + 1, len(values))
                        if values[i] <= NEAR_END_FACTOR * peak), None)
        if near_at is None:
            return None, None
        near = _first_below(fn, steps[near_at - 1], steps[near_at], NEAR_END_FACTOR * peak)
        # the end is planned when the factor reaches zero within END_SHARE of the steps
        # before it (the module doc): its lowest point in [near, near / (1 - END_SHARE)]
        window_end = max(near + 2, int(near / (1 - END_SHARE)))
        lowest = _lowest(fn, near, window_end)
        if _factor(fn, lowest) > ZERO_FACTOR * peak:
            return None, None          # an asymptotic decay: no planned end
        length = _first_below(fn, near, lowest, ZERO_FACTOR * peak)
        return length, _climbs_back(fn, length, peak)
    except Exception:                   # a lambda that raises or returns a non-number
        return None, None


def _first_below(fn, low, high, level):
    """The first whole step in (low, high] whose factor is at or below ``level``, by bisection
    (the factor falls through ``level`` once there; f(high) <= level)."""
    while high - low > 1:
        middle = (low + high) // 2
        if _factor(fn, middle) <= level:
            high = middle
        else:
            low = middle
    return high


def _lowest(fn, low, high):
    """A whole step of the lowest factor in [low, high]: golden-section search (a decay that
    reaches zero and stays, or a cosine's trough: one low region)."""
    ratio = (math.sqrt(5) - 1) / 2
    while high - low > 3:
        a = high - int(ratio * (high - low))
        b = low + int(ratio * (high - low))
        if a >= b:
            break
        if _factor(fn, a) <= _factor(fn, b):
            high = b
        else:
            low = a
    return min(range(low, high + 1), key=lambda k: _factor(fn, k))


def _climbs_back(fn, length, peak):
    """True when past ``length`` the factor rises to CLIMB_BACK of ``peak`` within another
    2 x length steps, passing through a value between ZERO_FACTOR and CLIMB_BACK of it."""
    span = 2 * length
    stride = max(1, span // CLIMB_SAMPLES)
    between = False
    for k in range(length + 1, length + span + 1, stride):
        share = _factor(fn, k) / peak
        if share >= CLIMB_BACK:
            return between
        if share > ZERO_FACTOR:
            between = True
    return False
