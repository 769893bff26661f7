"""Gradients shrunk after the optimizer already used them (GRADIENTS_CLIPPED_AFTER_STEP,
``nndebug.rules.clipped_after_step``).

``clip_grad_norm_`` / ``clip_grad_value_`` act on ``.grad`` as it is when they are called.
Written after ``optimizer.step()`` they scale gradients the step has already applied, and
the next ``zero_grad()`` drops them: the clip runs on every step and changes nothing, and
training goes on unclipped at a learning rate chosen for clipped steps. A clip only acts
once the gradients outgrow its norm, often well after the first steps, so every recorded
step is looked at (up to ``FOLLOWED_RECORDS`` of them, until one shows it).

What it sees (torch, the watched optimizer, on recorded steps): right after the step's
``optimizer.step()`` (a post-hook, on for the recorded step only), a reference to a few of
the gradient tensors (at most ``KEPT_TENSORS``, the smallest first) and each one's norm;
when the recorded step closes (watch's ``step()``, which the loop calls after the
optimizer's), the norms of those tensors that are still the parameters' ``.grad``. A
``zero_grad()`` in between sets ``.grad`` to None (the tensor is not compared) or fills it
with zeros (a ratio of 0, which the rule ignores): only code that changed the gradients
themselves between the two moments makes a ratio below 1. The norms stay where the
tensors live; ``read()`` copies them to the host once, when findings are asked for, into
``run.observed.gradients_after_step``: ``[(step, tensors compared, smallest ratio after /
before, largest ratio)]``.

Cost: on recorded steps only, one hook and a few norms; nothing on the others.
"""
FOLLOWED_RECORDS = 32    # [design] recorded steps looked at, at most: a long run records
                         # many; a clip after the step shows on any step it acts on
KEPT_TENSORS = 8         # [design] gradient tensors followed per step (a clip by norm scales
                         # every one by the same factor; a few show it)


class GradientsAfterStep:
    """Follows a few gradient tensors from the optimizer's step to the end of the recorded
    step (see the module doc)."""

    def __init__(self, adapter, observed, optimizer, current_step, on_error):
        self.observed, self.optimizer = observed, optimizer
        self.current_step, self.on_error = current_step, on_error
        self.enabled = adapter.framework == "torch" and \
            hasattr(optimizer, "register_step_post_hook")
        self.compared = []     # [(step, norms right after the step, norms when it closed)]
        self.followed = 0      # recorded steps looked at
        self._kept = None      # (step, params, gradient tensors, their norms)
        self._handle = None

    def arm(self, step):
        """A recorded step starts: hook the optimizer's step (once per recorded step)."""
        if not self.enabled or self.followed >= FOLLOWED_RECORDS or self._handle is not None:
            return
        try:
            self._handle = self.optimizer.register_step_post_hook(self._after_step)
        except Exception as error:     # an optimizer without step hooks: nothing is read
            self.enabled = False
            self.on_error(error)

    def _after_step(self, optimizer, args, kwargs):
        try:
            if self._kept is None:     # the recorded step's first optimizer step
                params = _smallest_with_gradients(optimizer)
                if params:
                    grads = [p.grad for p in params]
                    self._kept = (self.current_step(), params, grads, _norms(grads))
        except Exception as error:     # never break the user's step
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        """The recorded step closes: compare the gradients still held with the step's."""
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._kept is None:
            return
        step, params, grads, before = self._kept
        self._kept = None
        self.followed += 1
        try:
            held = [i for i, (p, g) in enumerate(zip(params, grads)) if p.grad is g]
            if len(held) == len(grads):      # the usual case: every one still there
                self.compared.append((step, before, _norms(grads)))
            elif held:
                import torch
                index = torch.tensor(held, device=before.device)
                self.compared.append((step, before.index_select(0, index),
                                      _norms([grads[i] for i in held])))
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def read(self):
        """The kept norms to the host, once, when findings are asked for."""
        try:
            rows = []
            for step, before, after in self.compared:
                ratios = [a / b for b, a in zip(before.tolist(), after.tolist()) if b > 0]
                if ratios:
                    rows.append((-1 if step is None else int(step), len(ratios),
                                 min(ratios), max(ratios)))
            if rows or not self.observed.gradients_after_step:
                self.observed.gradients_after_step = rows
        except Exception as error:
            self.on_error(error)


def _smallest_with_gradients(optimizer):
    """Up to KEPT_TENSORS parameters holding a dense gradient, the smallest first."""
    params = [p for group in optimizer.param_groups for p in group["params"]
              if getattr(p, "grad", None) is not None and not p.grad.is_sparse]
    return sorted(params, key=lambda p: p.numel())[:KEPT_TENSORS]


def _norms(grads):
    """One float32 norm per tensor, as one tensor on their device (no host transfer): one
    ``_foreach_norm`` for the tensors on the first one's device (the usual case: all of
    them), one norm each for any elsewhere."""
    import torch
    with torch.no_grad():
        device = grads[0].device
        if all(g.device == device for g in grads):
            return torch.stack(torch._foreach_norm([g.detach() for g in grads], 2,
                                                   dtype=torch.float32))
        return torch.stack([torch.linalg.vector_norm(g.detach(), dtype=torch.float32)
                            .to(device) for g in grads])
