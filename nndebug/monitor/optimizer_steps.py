"""Optimizer steps that reuse a gradient: more ``optimizer.step()`` calls than backward passes.

``step()`` closes one optimizer step of the user's loop. A loop that calls
``optimizer.step()`` a second time (a copy left outside an accumulation ``if``, a step in
both the batch loop and a helper) applies the same gradient again: with momentum or Adam
each extra call is a full update, so the run trains at a multiple of its learning rate on
stale gradients, between two recorded steps where the records cannot see it.

A step post-hook on the optimizer (torch's ``register_step_post_hook``, minigrad's own)
counts the optimizer's steps between two ``step()`` calls; ``carried_gradients.py``'s hook
counts the backward passes between them. A watched step with two or more optimizer steps
and fewer backward passes than optimizer steps had at least one step with no new gradient:
it is kept in ``run.observed.repeated_optimizer_steps``.

The same hook counts the watched steps in which the optimizer stepped at all
(``observed.stepped_total``, from ``stepped_since``): a loop whose ``optimizer.step()`` is
reached on few batches (indented into a logging branch, called once per epoch) shows as
few stepped steps among many watched ones (NO_OPTIMIZER_STEP, ``rules/setup.py``).

The same hook notes the first steps given a closure (``optimizer.step(closure)``: L-BFGS
evaluates it up to ``max_iter`` times, each with its own zero_grad and backward, so one
step is many iterations; ``run.observed.closure_steps``).

The same hook notes the first optimizer step taken with a param group's rate below zero
(real-bug batch 123: a schedule that subtracts a fixed amount per epoch crosses zero between
two judged records; ``run.observed.negative_rates`` as (step, group, rate)). One comparison
per param group and optimizer step, none after the first such step.

The same hook follows the highest rate of the param groups (real-bug batch 284: a linear
decay stepped before each epoch's batches reaches 0 for the whole last epoch, between two
judged records): ``run.observed.stopped_rates`` holds ``(first step, highest rate before)``
of the stretch of updates, still running, taken at a rate below a millionth of the run's
highest so far, and is emptied when the rate rises again. One comparison per param group
and optimizer step.

The same hook notes optimizer steps taken while the watched model is in eval mode (real-bug
batch 102: an evaluation loop that calls ``loss.backward()`` and ``optimizer.step()`` on the
test batches trains on them). A watched step with two or more of them, or any after the last
``step()``, is a burst the loop did not report as training: it is kept in
``run.observed.eval_mode_step_bursts`` as (step, eval-mode optimizer steps in it,
train-mode optimizer steps before it). A model trained in eval mode on purpose (frozen
batch norm) takes one such step per watched step, not bursts. One Python attribute read per
optimizer step.

Healthy loops stay quiet: one optimizer step per ``step()`` (plain training, gradient
accumulation over several backward passes, a ``GradScaler`` that skips a step, L-BFGS whose
closure runs its backward passes inside ``step``); ``step()`` called only every N optimizer
steps still sees N backward passes for N steps.
"""

MAX_STEPS_KEPT = 64     # [design] steps noted; the rule counts them all (``repeated_total``)
CLOSURE_STEPS_KEPT = 4   # [design] steps given a closure noted: a loop passes one to every
                        # step or to none (L-BFGS needs it), the first few say which
STOPPED_RATE = 1e-6      # [design] a rate below a millionth of the run's highest is stopped:
                        # the bar of LR_AT_ZERO (rules/stopped_learning_rate.STOPPED_FRACTION)

# (core variants 4) An optimizer subclass whose ``step`` calls ``super().step()`` (clipping
# inside a custom SGD) runs torch's step hooks twice for one update when the parent class's
# ``step`` was patched too (any instance of it built in the process): a step pre-hook counts
# the depth of nested ``step`` calls, and only the outermost one counts as a step. Only
# such subclasses get it (``_may_nest``): a plain SGD or Adam pays no second hook a step.


class OptimizerSteps:
    def __init__(self, optimizer, observed, backwards_in, current_step, on_error, root=None):
        self.observed, self._backwards_in = observed, backwards_in
        self._root = root                 # the watched model (its ``training`` flag)
        self._train_steps = 0             # optimizer steps taken in train mode so far
        self._eval_step, self._eval_steps = None, 0   # eval-mode steps of that watched step
        self._current_step, self._on_error = current_step, on_error
        self._counted_step, self._steps = None, 0    # optimizer steps of that watched step
        self._flagged_step = None
        self._handle = self._pre_handle = None
        self._depth, self._depth_step = 0, None       # nested step() calls now running
        self._peak_rate = 0.0                         # the highest rate of the run so far
        register = getattr(optimizer, "register_step_post_hook", None)
        if register is not None:
            try:
                self._handle = register(self._after_step)
                since = current_step()
                observed.stepped_since, observed.stepped_total = int(since or 0), 0
                pre = getattr(optimizer, "register_step_pre_hook", None)
                if pre is not None and _may_nest(optimizer):
                    self._pre_handle = pre(self._before_step)
            except Exception as error:        # an optimizer without working hooks
                on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        step = self._current_step()
        if step != self._depth_step:      # a step() that raised leaves no depth behind
            self._depth_step, self._depth = step, 0
        self._depth += 1

    def _after_step(self, optimizer, args, kwargs):
        if self._pre_handle is not None:
            self._depth = max(0, self._depth - 1)
            if self._depth:
                return                    # an inner step() of a subclass's step(): one update
        step = self._current_step()
        self._count_mode(step)
        if not self.observed.negative_rates:
            self._note_negative_rate(optimizer, step)
        self._follow_stopped_rate(optimizer, step)
        if len(self.observed.closure_steps) < CLOSURE_STEPS_KEPT and \
                (any(callable(a) for a in args) or callable(kwargs.get("closure"))):
            self.observed.closure_steps.append((int(step),))   # (torch's args hold the
                                                               # optimizer too: no callable)
        if step != self._counted_step:
            self._counted_step, self._steps = step, 0
            self.observed.stepped_total += 1      # a watched step with an optimizer step
        self._steps += 1
        if self._steps == 2:
            self.observed.multi_step_total += 1   # an update spanning several optimizer steps
        if self._steps >= 2 and step != self._flagged_step and \
                self._steps > self._backwards_in(step):
            self._flagged_step = step
            self.observed.repeated_total += 1
            if len(self.observed.repeated_optimizer_steps) < MAX_STEPS_KEPT:
                self.observed.repeated_optimizer_steps.append(int(step))

    def _note_negative_rate(self, optimizer, step):
        for group, settings in enumerate(getattr(optimizer, "param_groups", None) or ()):
            rate = settings.get("lr") if isinstance(settings, dict) else None
            if isinstance(rate, (int, float)) and rate < 0:
                self.observed.negative_rates.append((int(step), group, float(rate)))
                return

    def _follow_stopped_rate(self, optimizer, step):
        highest = None                        # one pass, no lists: this runs on every step
        for settings in getattr(optimizer, "param_groups", None) or ():
            rate = settings.get("lr") if isinstance(settings, dict) else None
            if isinstance(rate, (int, float)) and (highest is None or rate > highest):
                highest = rate
        if highest is None:
            return
        rows = self.observed.stopped_rates
        if highest > STOPPED_RATE * self._peak_rate:
            if rows:
                rows.clear()                  # the rate rose again: no stretch runs now
            self._peak_rate = max(self._peak_rate, float(highest))
        elif not rows and self._peak_rate > 0:
            rows.append((int(step), self._peak_rate))

    def _count_mode(self, step):
        """Counts this optimizer step as taken in train or eval mode; the eval-mode ones of
        one watched step become a row once there are two (updated as more come)."""
        if self._root is None:
            return
        if getattr(self._root, "training", True):
            self._train_steps += 1
            return
        if step != self._eval_step:
            self._eval_step, self._eval_steps = step, 0
        self._eval_steps += 1
        rows = self.observed.eval_mode_step_bursts
        if self._eval_steps == 2 and len(rows) < MAX_STEPS_KEPT:
            rows.append((int(step), 2, self._train_steps))
        elif self._eval_steps > 2 and rows and rows[-1][0] == step:
            rows[-1] = (int(step), self._eval_steps, rows[-1][2])

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._pre_handle is not None:
            self._pre_handle.remove()
            self._pre_handle = None


def _may_nest(optimizer):
    """Whether a ``step`` of this optimizer's class can call another class's ``step`` (its
    parent's, through ``super()``): three or more classes of its MRO define ``step`` (the
    abstract base, a torch optimizer, and a subclass of it)."""
    return sum("step" in vars(cls) for cls in type(optimizer).__mro__) >= 3
