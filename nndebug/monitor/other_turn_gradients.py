"""Gradients the watched network got during another network's turn, still in its ``.grad``
when its own optimizer steps after its own backward (``run.observed.other_turn_gradients``,
read by ``nndebug.rules.other_turn_gradients``).

In a GAN the generator's loss ``bce(D(G(z)), real)`` is backpropagated through the
discriminator too: the discriminator's parameters receive the generator's gradient (make the
fakes look real) during the generator's turn. Its own turn must start by clearing that
(``opt_d.zero_grad()``); a loop that clears the discriminator's gradients only after its
step (Lightning-AI/pytorch-lightning#557) steps it with the sum of its own loss's gradient
and the generator's, which pulls the other way on every fake. Nothing in the watched
network's statistics shows it: every backward delivered what ``.grad`` holds.

On the first ``STEPS_MEASURED`` watched steps, torch's global optimizer step pre-hook
notices another optimizer's step (another network's turn) while one watched parameter (the
smallest holding a gradient: a bias) holds a non-zero gradient: that gradient is copied,
and the gradients that reach the parameter afterwards are summed by a tensor hook. At the
watched optimizer's step the parameter's ``.grad`` is compared with both: equal to the copy
plus the later sum, the other turn's gradient was carried ("carried"); equal to the later
sum alone, it was cleared ("cleared"). No backward after the other turn (an actor-critic
loss backpropagated once, then both optimizers stepped) gives no verdict: that gradient is
this step's own.

Each verdict lands as ``(step, "carried" or "cleared", through_rival)``: ``through_rival``
says whether a backward since the other turn also reached the other optimizer's smallest
parameter (its gradient changed): the watched loss goes through the other network, as a GAN
generator's loss goes through its discriminator (``curve.adversarial_turns`` reads it). Cost: on the first
``STEPS_MEASURED`` watched steps only (``STEP_CALLS_MAX`` optimizer steps at most), per
optimizer step one identity test; per other turn
one pass over the watched parameters and a copy of one small gradient; per later backward
one addition on it; one comparison (a host sync) at the watched step. After those steps the
hook returns at once until the next recorded step removes it (``release``).
"""
import weakref

STEPS_MEASURED = 3           # [design] watched steps looked at: the loop's order shows on
                             # the first steps, and the hook leaves after them
STEP_CALLS_MAX = 64          # [design] optimizer steps seen at most: an optimizer given to
                             # watch that never steps itself (a wrapper's inner one steps)
                             # must not leave the hook on for the whole run
MATCH_RTOL = 1e-4            # [design] float32 sums compared: the same additions in another
MATCH_ATOL = 1e-7            # order differ by a few ulps, the two cases by a whole gradient


class OtherTurnGradients:
    def __init__(self, adapter, observed, parameters, optimizer, current_step, on_error):
        self.observed, self.optimizer, self.on_error = observed, optimizer, on_error
        self._current_step = current_step
        self._parameters = [weakref.ref(p) for p in parameters]
        self._followed = None        # (weak parameter, copy of its gradient then) or None
        self._later = None           # what reached it since
        self._tensor_hook = None
        self._rival = None           # (weak parameter of the other optimizer, its gradient then)
        self._handle = None
        self.watched_steps = 0
        self._calls = 0              # optimizer steps seen, of any optimizer
        self.done = False            # measured: the hook only returns until released
        if adapter.framework != "torch" or optimizer is None or not self._parameters:
            return
        try:
            from torch.optim.optimizer import register_optimizer_step_pre_hook
            self._handle = register_optimizer_step_pre_hook(self._before_step)
        except Exception as error:     # a torch without global optimizer hooks
            on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        if self.done:
            return                     # the handle goes in release(), outside torch's loop
        self._calls += 1               # over the hooks (removing it here breaks that loop)
        try:
            if self._calls > STEP_CALLS_MAX:
                self._finish()
            elif optimizer is self.optimizer:
                self._judge()
                self.watched_steps += 1
                if self.watched_steps >= STEPS_MEASURED:
                    self._finish()
            elif self._followed is None:
                self._follow(optimizer)
        except Exception as error:     # never break the user's step
            self._finish()
            self.on_error(error)

    def _finish(self):
        self.done = True
        self._unfollow()

    def _follow(self, other):
        """Another optimizer steps: copy the smallest watched gradient it does not hold."""
        held = {id(p) for group in other.param_groups for p in group["params"]}
        candidates = [p for p in (ref() for ref in self._parameters)
                      if p is not None and p.grad is not None and id(p) not in held]
        if not candidates:
            return
        parameter = min(candidates, key=lambda p: p.numel())
        if not bool(parameter.grad.detach().abs().max() > 0):
            return                     # all zero: carried and cleared would read alike
        self._followed = (weakref.ref(parameter), parameter.grad.detach().clone())
        self._later = None
        self._tensor_hook = parameter.register_hook(self._reached)
        rival = min((p for group in other.param_groups for p in group["params"]),
                    key=lambda p: p.numel(), default=None)
        self._rival = None if rival is None else (
            weakref.ref(rival), None if rival.grad is None else rival.grad.detach().clone())

    def _reached(self, gradient):
        gradient = gradient.detach()
        self._later = gradient.clone() if self._later is None else self._later + gradient

    def _judge(self):
        if self._followed is None:
            return
        reference, then = self._followed
        later, parameter = self._later, reference()
        through_rival = self._rival_reached()
        self._unfollow()
        if later is None or parameter is None or parameter.grad is None:
            return                     # no backward since the other turn: no verdict
        now = parameter.grad.detach()
        if now.shape != then.shape:
            return

        def close(a, b):
            return bool(((a - b).abs() <= MATCH_ATOL + MATCH_RTOL * b.abs()).all())

        carried, cleared = close(now, then + later), close(now, later)
        if carried != cleared:
            self.observed.other_turn_gradients.append(
                (int(self._current_step()), "carried" if carried else "cleared", through_rival))

    def _rival_reached(self):
        """Did a backward since the other optimizer's step reach its parameters (its
        smallest one's gradient changed)? The watched loss then goes through the other
        network: a GAN's generator, whose loss is its rival's verdict on the fakes (or a
        discriminator whose loss is not cut from the generator). A discriminator fed
        detached fakes leaves the generator's gradients as they were."""
        if self._rival is None:
            return False
        reference, then = self._rival
        rival = reference()
        if rival is None or rival.grad is None:
            return False
        now = rival.grad.detach()
        return then is None or now.shape != then.shape or not bool((now == then).all())

    def _unfollow(self):
        if self._tensor_hook is not None:
            self._tensor_hook.remove()
        self._followed, self._later, self._tensor_hook = None, None, None
        self._rival = None

    def release(self):
        """Remove the global hook once measuring is done (called on recorded steps, outside
        any optimizer step)."""
        if self.done:
            self.close()

    def close(self):
        self._unfollow()
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
