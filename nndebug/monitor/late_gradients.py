"""Gradients the optimizer never reads: delivered after its step, or never cleared
(``run.observed.late_gradients`` and ``run.observed.uncleared_gradients``, read by
``nndebug.rules.late_gradients``).

Two hand-written loop orders make gradients that no update uses as meant:

- a backward after ``optimizer.step()``: ``loss_a.backward(); optimizer.step();
  loss_b.backward()`` (MyeongJin-Kim/Learning-Texture-Invariant-Representation#11), or the
  step written before the one backward. What that backward delivers lands in ``.grad`` once
  the step is taken, and the ``zero_grad()`` at the top of the next iteration wipes it: the
  parameters only that loss reaches never move. They are seen as the optimizer's parameters
  whose ``.grad`` is None when it steps and holds a gradient when watch's ``step()`` closes
  the recorded step (``zero_grad(set_to_none=False)`` leaves a None ``.grad`` None, so
  nothing but a backward fills it in between);
- ``model.zero_grad()`` while the optimizer also steps parameters outside the model (a
  centre loss's centres, a learnable loss weight; freud14/poutyne#12): nothing clears those,
  each backward adds to the sum of all earlier ones, and every update repeats all earlier
  updates. The model's own parameters are compared by the step records (GRADIENTS_
  ACCUMULATING); these are not in them. A tensor hook on each such parameter sums what the
  step's backward passes deliver, and at the optimizer's step ``|.grad - delivered|`` is
  compared with ``|delivered|``.

Both read the first ``STEPS_MEASURED`` recorded steps (the loop's order is the same on every
step): one optimizer step post-hook per such step and, only for parameters the optimizer
holds outside the model (most loops have none), a tensor hook each. Each verdict lands as
``late_gradients: (step, parameters without a gradient at the step, of which filled before
the step closed, [their names])`` and ``uncleared_gradients: (step, parameter name,
|.grad - delivered| / |delivered|)``.
"""
STEPS_MEASURED = 3           # [design] recorded steps looked at: a loop's order shows on
                             # the first steps
NAMES_KEPT = 4               # [design] names of late-filled parameters kept per step
OUTSIDE_KEPT = 8             # [design] parameters outside the model followed at most
ARMED_MAX = 16               # [design] recorded steps armed at most: a loop whose optimizer
                             # never steps inside a recorded step gives no verdict, and the
                             # hooks must not come back for the whole run


class LateGradients:
    """Watches ``.grad`` around the optimizer's step on the first recorded steps (module doc)."""

    def __init__(self, adapter, observed, model, optimizer, current_step, on_error):
        self.observed, self.optimizer = observed, optimizer
        self.current_step, self.on_error = current_step, on_error
        self.enabled = adapter.framework == "torch" and \
            hasattr(optimizer, "register_step_post_hook")
        self.measured, self.armed = 0, 0
        self._handles, self._step_seen, self._empty = [], False, None
        self._delivered, self._uncleared = {}, []
        self._names, self._outside = {}, []
        if self.enabled:
            try:
                self._names = {id(p): name for name, p in model.named_parameters()}
                held = [p for group in optimizer.param_groups for p in group["params"]]
                self._outside = [(f"optimizer group {g} tensor {i} {tuple(p.shape)}", p)
                                 for g, group in enumerate(optimizer.param_groups)
                                 for i, p in enumerate(group["params"])
                                 if id(p) not in self._names and p.requires_grad][:OUTSIDE_KEPT]
                self._held = held
            except Exception as error:       # an optimizer without param_groups
                self.enabled = False
                on_error(error)

    def arm(self, step):
        if not self.enabled or self.measured >= STEPS_MEASURED or self._handles or \
                self.armed >= ARMED_MAX:
            return
        self.armed += 1
        try:
            self._handles.append(self.optimizer.register_step_post_hook(self._after_step))
            for name, p in self._outside:
                self._handles.append(p.register_hook(self._summing(name)))
        except Exception as error:
            self.enabled = False
            self.on_error(error)
            self._remove()

    def _summing(self, name):
        def hook(grad):
            if not self._step_seen:
                earlier = self._delivered.get(name)
                self._delivered[name] = grad.detach().clone() if earlier is None \
                    else earlier + grad.detach()
        return hook

    def _after_step(self, optimizer, args, kwargs):
        if self._step_seen:            # the recorded step's first optimizer step only
            return
        self._step_seen = True
        try:
            import torch
            self._empty = [p for p in self._held if p.requires_grad and p.grad is None]
            with torch.no_grad():
                for name, p in self._outside:
                    delivered = self._delivered.get(name)
                    if p.grad is None or delivered is None or p.grad.shape != delivered.shape:
                        continue
                    self._uncleared.append((self.current_step(), name,
                                            torch.linalg.vector_norm(p.grad - delivered),
                                            torch.linalg.vector_norm(delivered)))
        except Exception as error:     # never break the user's step
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        """The recorded step closes: which parameters empty at the step hold a gradient now."""
        if not self._handles:
            return
        self._remove()
        try:
            if self._step_seen and self._empty is not None:
                late = [p for p in self._empty if p.grad is not None]
                self.observed.late_gradients.append(
                    (int(self.current_step()), len(self._empty), len(late),
                     [self._names.get(id(p), str(tuple(p.shape))) for p in late][:NAMES_KEPT]))
            if self._step_seen:
                self.measured += 1
        except Exception as error:
            self.enabled = False
            self.on_error(error)
        self._step_seen, self._empty, self._delivered = False, None, {}

    def _remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def close(self):
        """The monitor closes: the hooks of a step armed but never closed go."""
        self._remove()

    def read(self):
        """The uncleared-gradient norms to the host, once, when findings are asked for."""
        try:
            rows = [(int(step), name, float(excess) / float(delivered))
                    for step, name, excess, delivered in self._uncleared if float(delivered) > 0]
            if rows or not self.observed.uncleared_gradients:
                self.observed.uncleared_gradients = rows
        except Exception as error:
            self.on_error(error)
