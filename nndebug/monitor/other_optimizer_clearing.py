"""Whether the OTHER optimizers of the loop clear their gradients between their own steps
(``run.observed.other_optimizer_carries``, read by ``nndebug.rules.setup``'s
GRADIENTS_ACCUMULATING).

watch is given one optimizer (a GAN's generator's, an actor's), and reads that one's
``.grad`` at every recorded step. A loop often steps another: the discriminator's, the
critic's. When that one is never zeroed - ``opt_d.zero_grad()`` forgotten, or called once
per round of five critic steps - each of its steps applies every gradient since the start
(or since the round began), the other network trains badly and, through the game, so does
the watched one. Nothing in the watched network's statistics says why.

What is measured (torch): a global optimizer step pre-hook sees every optimizer's step. For
an optimizer that is not the watched one, its smallest parameter of MIN_ELEMENTS values or
more holding a non-zero gradient is followed: its ``.grad`` is copied at that step, and a
tensor hook keeps each gradient that reaches the parameter afterwards. At that optimizer's
next step, ``.grad`` is compared by direction (clipping and a GradScaler's unscaling rescale
``.grad`` as a whole): along the copy plus everything that arrived, nothing was cleared in
between ("carried"); along the sum of the last arrivals alone, it was cleared before them
("cleared"). No backward reaching the parameter in between, or a ``.grad`` that matches both
or neither, gives no verdict. A step given a closure (L-BFGS clears inside it) is skipped.

Each verdict lands as ``(step, "carried" or "cleared", parameters the optimizer holds)``.
Cost: the first ``VERDICTS_WANTED`` verdicts (``STEP_CALLS_MAX`` optimizer steps at most):
per other optimizer step a copy of one small gradient and one comparison (a host sync); per
backward in between one copy; then the hook returns at once until ``release``.
"""
import weakref

from .carried_state import _cosine

VERDICTS_WANTED = 6          # [design] verdicts collected: a loop's clearing habit shows on
                             # its first steps (a critic cleared once per round of five shows
                             # 4 carried of 5)
STEP_CALLS_MAX = 200         # [design] optimizer steps seen at most (the watched one's too):
                             # the hook must not stay for the whole run of a loop that steps
                             # one optimizer only (then it costs one call per step until here)
MIN_ELEMENTS = 16            # [design] the followed parameter's size at least: two gradients
                             # of one value (a critic's last bias) point the same way whenever
                             # their signs agree, and a WGAN critic's last bias gets exactly 0
ARRIVALS_KEPT = 16           # [design] backward passes reaching the followed parameter kept
                             # between two of its optimizer's steps (more: no verdict)
PARALLEL = 1e-4              # [design] 1 - cosine under which two gradients point the same
                             # way: float32 sums in another order differ by ulps, a carried
                             # gradient from a cleared one by a whole earlier gradient


class OtherOptimizerClearing:
    def __init__(self, adapter, observed, optimizer, current_step, on_error):
        self.observed, self.on_error = observed, on_error
        self._watched = optimizer
        self._current_step = current_step
        self._followed = {}          # id(optimizer) -> [weak optimizer, weak parameter,
                                     #   copy of its .grad, gradients arrived since, hook]
        self._calls = 0
        self._handle = None
        self.done = False
        if adapter.framework != "torch" or optimizer is None:
            self.done = True
            return
        try:
            from torch.optim.optimizer import register_optimizer_step_pre_hook
            self._handle = register_optimizer_step_pre_hook(self._before_step)
        except Exception as error:     # a torch without global optimizer hooks
            self.done = True
            on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        if self.done:                  # the handle itself goes in release(): removing it
            return                     # inside torch's loop over the hooks breaks that loop
        self._calls += 1
        if optimizer is self._watched:
            if self._calls >= STEP_CALLS_MAX:
                self._finish()         # a loop with one optimizer: the hook leaves early
            return
        try:
            # torch hands the step's own arguments: (optimizer,) then closure if given
            closure = kwargs.get("closure", args[1] if len(args) > 1 else None)
            if closure is not None:
                self._drop(optimizer)              # a closure clears inside the step
            else:
                self._judge(optimizer)
                self._follow(optimizer)
            if self._calls >= STEP_CALLS_MAX or \
                    len(self.observed.other_optimizer_carries) >= VERDICTS_WANTED:
                self._finish()
        except Exception as error:     # never break the user's step
            self._finish()
            self.on_error(error)

    def _follow(self, optimizer):
        """Copy the smallest non-zero gradient this optimizer holds, and keep each gradient
        that reaches that parameter until the optimizer's next step. The sizes are read
        first, so only the candidates tried cost a look at their values."""
        held = sorted((p for group in optimizer.param_groups for p in group["params"]
                       if getattr(p, "grad", None) is not None and p.numel() >= MIN_ELEMENTS),
                      key=lambda p: p.numel())
        parameter = next((p for p in held if bool(p.grad.detach().abs().max() > 0)), None)
        if parameter is None:
            return
        arrivals = []
        entry = [weakref.ref(optimizer), weakref.ref(parameter),
                 parameter.grad.detach().clone(), arrivals, None]

        def reached(gradient):
            if len(arrivals) < ARRIVALS_KEPT:
                arrivals.append(gradient.detach().clone())
        entry[4] = parameter.register_hook(reached)
        self._followed[id(optimizer)] = entry

    def _judge(self, optimizer):
        entry = self._drop(optimizer)
        if entry is None:
            return
        _, reference, then, arrivals, _ = entry
        parameter = reference()
        if not arrivals or len(arrivals) >= ARRIVALS_KEPT or parameter is None or \
                parameter.grad is None:
            return                     # no backward reached it since (or too many): no verdict
        now = parameter.grad.detach()
        if now.shape != then.shape or not bool(then.abs().max() > 0):
            return                     # an all-zero copy: carried and cleared read alike
        # cleared: .grad is what arrived since some point after the last step (a GAN's
        # discriminator also receives the generator's gradient, before its own zero_grad)
        suffixes, total = [], None
        for gradient in reversed(arrivals):
            total = gradient if total is None else total + gradient
            suffixes.append(total)
        carried = _parallel(now, then + total)
        cleared = any(_parallel(now, suffix) for suffix in suffixes)
        if carried != cleared:
            held = sum(len(group["params"]) for group in optimizer.param_groups)
            self.observed.other_optimizer_carries.append(
                (int(self._current_step()), "carried" if carried else "cleared", int(held)))

    def _drop(self, optimizer):
        entry = self._followed.pop(id(optimizer), None)
        if entry is not None and entry[4] is not None:
            entry[4].remove()
        return entry

    def _finish(self):
        self.done = True
        for key in list(self._followed):
            entry = self._followed.pop(key)
            if entry[4] is not None:
                entry[4].remove()

    def release(self):
        """Remove the global hook once measuring is done (called on recorded steps, outside
        any optimizer step: removing it inside torch's loop over the hooks breaks that loop)."""
        if self.done:
            self.close()

    def close(self):
        self._finish()
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def _parallel(a, b):
    """Whether two gradient tensors point the same way (cosine within PARALLEL of 1; a zero
    tensor points nowhere)."""
    cosine = _cosine(a.double().flatten(), b.double().flatten())
    return cosine == cosine and 1.0 - cosine <= PARALLEL
